from ascgen.cli import main

main()
