print("socket-bench")
