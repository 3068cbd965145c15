// Every line of runtime/intercept_table.def: a REWRITE function is called
// as __detsim_<name> and no longer declared, PASSTHROUGH and UNSUPPORTED
// functions keep their names, and each UNSUPPORTED call is warned about
// (with the table's note, and the function since there is no -g).  The cases
// are generated from the table by Inputs/table_cases.c.
//
// RUN: %clang -I%src %inputs/table_cases.c -o %t.gen
// RUN: %t.gen c > %t.c
// RUN: %t.gen checks > %t.checks
// RUN: %t.gen decls > %t.decls
// RUN: %t.gen warnings > %t.warnings
// RUN: %clang -fplugin=%plugin -O0 -fno-builtin -Wno-incompatible-library-redeclaration -S -emit-llvm %t.c -o %t.ll 2> %t.stderr
// RUN: FileCheck %t.checks --input-file=%t.ll
// RUN: FileCheck %t.decls --check-prefix=DECL --input-file=%t.ll
// RUN: FileCheck %t.warnings --check-prefix=WARN --input-file=%t.stderr --implicit-check-not="not simulated"
//
// The same at -O2, where calls are no longer in their own blocks' first line.
// RUN: %clang -fplugin=%plugin -O2 -fno-builtin -w -S -emit-llvm %t.c -o %t.O2.ll
// RUN: FileCheck %t.decls --check-prefix=DECL --input-file=%t.O2.ll
