Boutput_0J
GI~€ζηθφ