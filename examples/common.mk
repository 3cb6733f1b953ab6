# SPDX-License-Identifier: MIT
# examples/common.mk: what the examples' Makefiles share: find the installed gcoo with
# pkg-config and build one program from one source file. An example's Makefile sets
#   SRC   its own folder (with a trailing /), PROG  the program (source $(SRC)$(PROG).$(SUFFIX)),
#   LINK  the compiler that builds it ($(CC), or $(MPICC) for a program that calls MPI)
# and, for another language than C, SUFFIX (f90), PACKAGE (the pkg-config module, gcoo-fortran)
# and FLAGS (its compiler's flags, $(FFLAGS)); then includes this file. Make variables: OUT=dir
# (default .), CFLAGS, STATIC=1 (link libgcoo.a with `pkg-config --libs gcoo-static`).
OUT ?= .
CFLAGS ?= -O2 -Wall -Wextra
SUFFIX ?= c
PACKAGE ?= gcoo
FLAGS ?= $(CFLAGS)

ifneq ($(shell pkg-config --exists $(PACKAGE) && echo yes),yes)
$(error pkg-config does not find $(PACKAGE): set PKG_CONFIG_PATH=<gcoo prefix>/lib/pkgconfig)
endif
GCOO_CFLAGS := $(shell pkg-config --cflags $(PACKAGE))
ifeq ($(STATIC),1)
# gcoo-static.pc names libgcoo.a itself, with what it needs
GCOO_LIBS := $(shell pkg-config --libs $(PACKAGE)-static)
else
# gcoo.pc's Libs carry an rpath: the installed libgcoo.so is found without LD_LIBRARY_PATH
GCOO_LIBS := $(shell pkg-config --libs $(PACKAGE))
endif

$(OUT)/$(PROG): $(SRC)$(PROG).$(SUFFIX)
	$(LINK) $(FLAGS) $(GCOO_CFLAGS) -o $@ $< $(GCOO_LIBS) -lm

.PHONY: clean
clean:
	rm -f $(OUT)/$(PROG)
