Binput_7J
