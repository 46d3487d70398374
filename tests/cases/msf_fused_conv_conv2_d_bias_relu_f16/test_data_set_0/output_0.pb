
Boutput_0J€J@L@N@O€I€KÀMÀN