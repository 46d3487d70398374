
Blower_edge_hertzJ(_