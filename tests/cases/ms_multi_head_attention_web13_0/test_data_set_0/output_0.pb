Boutput_0Jı
@@