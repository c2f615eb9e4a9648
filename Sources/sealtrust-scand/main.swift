print("sealtrust-scand: not built yet")
