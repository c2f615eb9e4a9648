print("sealtrust-scanctl: not built yet")
