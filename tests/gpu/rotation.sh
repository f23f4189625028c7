# Sourced by the overhead scripts: the order of round I's three runs, one of
# the six orders of A B C in turn, so that no mode always runs first (a warm
# GPU, a page cache) or last. Prints the three words.
rotation3() {
	case $(($1 % 6)) in
	0) echo "$2 $3 $4" ;;
	1) echo "$3 $4 $2" ;;
	2) echo "$4 $2 $3" ;;
	3) echo "$2 $4 $3" ;;
	4) echo "$4 $3 $2" ;;
	5) echo "$3 $2 $4" ;;
	esac
}
