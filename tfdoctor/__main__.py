"""Let `python -m tfdoctor` behave exactly like the `tfdoctor` command."""

from tfdoctor.cli.main import main

if __name__ == "__main__":
    main()
