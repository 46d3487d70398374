Binput_2J†M8>È∆
<u	h?Ëü<Úu)ø