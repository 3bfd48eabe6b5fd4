# counts lines
{ n++ }
END { print n, "lines" }
