"""Text that leaves the machine: redact.py removes home paths, user and host names and
credentials from anything shown or shared.
"""
