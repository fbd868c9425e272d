from litdesk.faces.cli import main

main()
