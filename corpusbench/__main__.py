from corpusbench.cli import main

main()
