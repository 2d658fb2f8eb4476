"""Pictures for people: terminal text and SVG drawings of hands, tricks and deals.

The top of the library with the players: nothing below it imports a picture.
"""
