Binput_0J
ü®÷³’²­Ò€±VcQg