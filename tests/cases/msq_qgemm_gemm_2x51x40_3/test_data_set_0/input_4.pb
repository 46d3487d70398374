3Binput_4JÌ#|€;¥y;hH;ÿ{I;APu;Ô Q;ïk;Á7y;¸ l;ŠºH;pj‚;-Àp;º½n;Üá\;MQp;qW;M®f;sûo;{™\;íe;ÊO;^};§°Y;ì&g;¾¥{;Y[;Ë¬F;½ùK;Œçz;ùkZ;€Õ\;ísI;ò¤Y;
m;ğ´b;—Ù€;utR;oš‚;¿ZF;f;$‹d;óp;õTY;ŒL;M¸G;ç‡u;pët;­ZZ;£ŒI;
F;¦€;