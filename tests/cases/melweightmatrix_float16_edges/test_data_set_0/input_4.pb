
Bupper_edge_hertzJ¢t