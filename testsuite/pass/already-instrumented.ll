; A module that carries the detsim.instrumented marker (instrumented before
; an LTO link, or by a second load of the plugin) is left as it is: no
; second yield point, no rename of what is left.
;
; RUN: %clang -fpass-plugin=%plugin -O0 -S -emit-llvm -x ir %s -o - | FileCheck %s --implicit-check-not=__detsim


declare i32 @usleep(i32)

; CHECK-LABEL: @f(
define i32 @f(ptr %p) {
; CHECK-NEXT: atomicrmw add ptr %p, i32 1 seq_cst
  %a = atomicrmw add ptr %p, i32 1 seq_cst
; CHECK-NEXT: call i32 @usleep(i32 1)
  %b = call i32 @usleep(i32 1)
  ret i32 %b
}

; CHECK: !detsim.instrumented = !{![[MD:[0-9]+]]}
; CHECK-NOT: !detsim.instrumented
!detsim.instrumented = !{!0}
!0 = !{i32 1}
