
By_scaleJf.