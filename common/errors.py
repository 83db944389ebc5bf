"""The one error type that reaches a user: bad input, said in one line.

A leaf module with no imports, so that every package may raise it without import cycles.
"""


class InputError(ValueError):
    """Bad input from a user: a missing or corrupt file, an unknown name, an unusable image.

    The message is one line that names the file or thing and what is wrong with it.
    The command line prints it and exits with code 2; the GUI shows it.
    """
