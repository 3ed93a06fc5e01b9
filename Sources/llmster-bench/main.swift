// `make bench`: each section is a function in its own file of this target.
