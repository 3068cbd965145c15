# lit configuration of the plugin tests; lit.site.cfg.py (generated in the
# build tree) sets the paths and then loads this file.
#
# Substitutions: %clang, %clangxx (the clang-19 the plugin was built for),
# %plugin (libdetsim.so), %opt, %llvm-dis, %lld, %src (the source tree, for
# runtime/intercept_table.def), %inputs (Inputs/, helper sources that are
# not tests themselves).  FileCheck and not come from LLVM's tools directory.
import os
import platform

import lit.formats

config.name = "detsim-pass"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".cpp", ".ll"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.detsim_obj_root

# `lit --param detsim_plugin=PATH` tests another build of the plugin (an
# installed one, or a deliberately broken one to see the tests fail).
config.detsim_plugin = lit_config.params.get("detsim_plugin", config.detsim_plugin)
if not os.path.exists(config.detsim_plugin):
    lit_config.fatal("the plugin is not built: %s (run cmake --build first)"
                     % config.detsim_plugin)

tools = config.llvm_tools_dir
clangxx = getattr(config, "clangxx", "") or os.path.join(os.path.dirname(config.clang), "clang++")
# Longer names first: lit substitutes in order, and %clang is a prefix of
# %clangxx.
config.substitutions.append(("%clangxx", clangxx))
config.substitutions.append(("%clang", config.clang))
config.substitutions.append(("%plugin", config.detsim_plugin))
config.substitutions.append(("%opt", os.path.join(tools, "opt")))
config.substitutions.append(("%llvm-dis", os.path.join(tools, "llvm-dis")))
config.substitutions.append(("%lld", config.lld))
config.substitutions.append(("%src", config.detsim_src_root))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.environment["PATH"] = os.pathsep.join([tools, config.environment.get("PATH", "")])

# -flto links need an lld as new as the bitcode: Debian's lld-19 package.
if config.lld and os.path.exists(config.lld):
    config.available_features.add("lld")
# The tests check x86-64 IR shapes (128-bit atomics, rdtsc).
if platform.machine() == "x86_64":
    config.available_features.add("x86_64")
# The tests look at the rewrites and yield points one IR line after another;
# work counting (passes/work.c) adds to a counter before every call and
# branch, so it is off here but in work-count.c, which checks it.
config.environment["DETSIM_COUNT_WORK"] = "0"
