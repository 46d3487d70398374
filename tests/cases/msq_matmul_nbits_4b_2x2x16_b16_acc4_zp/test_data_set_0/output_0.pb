Boutput_0JR
õ½îM!?Ï™Ä¾fh¼>