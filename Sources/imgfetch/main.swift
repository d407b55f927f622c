print("imgfetch")
