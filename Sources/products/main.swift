print("products: coming")
