print("lmstudio-sim")
