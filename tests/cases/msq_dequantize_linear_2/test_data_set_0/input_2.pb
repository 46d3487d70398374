Binput_2J
