; Every atomic instruction form, whatever front end wrote it: each
; atomicrmw operation, cmpxchg weak and volatile, atomics with
; syncscope("singlethread") (still memory accesses: yielded), vector and
; pointer atomics, and addresses in other address spaces (flattened to ptr
; through an integer; an x86 segment space cannot be addrspacecast).
;
; RUN: %clang -fpass-plugin=%plugin -O0 -S -emit-llvm -x ir %s -o %t.ll
; RUN: FileCheck %s --input-file=%t.ll
; RUN: %opt -passes=verify -disable-output %t.ll


; CHECK-LABEL: @rmw_ops(
define void @rmw_ops(ptr %p, ptr %f) {
; CHECK: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw xchg ptr %p, i32 1 seq_cst
  atomicrmw xchg ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw add ptr %p, i32 1 seq_cst
  atomicrmw add ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw sub ptr %p, i32 1 seq_cst
  atomicrmw sub ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw and ptr %p, i32 1 seq_cst
  atomicrmw and ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw nand ptr %p, i32 1 seq_cst
  atomicrmw nand ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw or ptr %p, i32 1 seq_cst
  atomicrmw or ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw xor ptr %p, i32 1 seq_cst
  atomicrmw xor ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw max ptr %p, i32 1 seq_cst
  atomicrmw max ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw min ptr %p, i32 1 seq_cst
  atomicrmw min ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw umax ptr %p, i32 1 seq_cst
  atomicrmw umax ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw umin ptr %p, i32 1 seq_cst
  atomicrmw umin ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw uinc_wrap ptr %p, i32 1 seq_cst
  atomicrmw uinc_wrap ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 3)
; CHECK-NEXT: atomicrmw udec_wrap ptr %p, i32 1 seq_cst
  atomicrmw udec_wrap ptr %p, i32 1 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %f, i32 3)
; CHECK-NEXT: atomicrmw fadd ptr %f, float 1.000000e+00 seq_cst
  atomicrmw fadd ptr %f, float 1.0 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %f, i32 3)
; CHECK-NEXT: atomicrmw fsub ptr %f, float 1.000000e+00 seq_cst
  atomicrmw fsub ptr %f, float 1.0 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %f, i32 3)
; CHECK-NEXT: atomicrmw fmax ptr %f, float 1.000000e+00 seq_cst
  atomicrmw fmax ptr %f, float 1.0 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %f, i32 3)
; CHECK-NEXT: atomicrmw fmin ptr %f, float 1.000000e+00 seq_cst
  atomicrmw fmin ptr %f, float 1.0 seq_cst
; CHECK-NEXT: call void @__detsim_yield_access(ptr %f, i32 3)
; CHECK-NEXT: atomicrmw volatile xchg ptr %f, double 2.000000e+00 monotonic
  atomicrmw volatile xchg ptr %f, double 2.0 monotonic
; CHECK-NEXT: ret void
  ret void
}

; CHECK-LABEL: @widths_and_forms(
define void @widths_and_forms(ptr %p) {
; CHECK: call void @__detsim_yield_access(ptr %p, i32 4)
; CHECK-NEXT: cmpxchg weak volatile ptr %p, i8 0, i8 1 acq_rel monotonic
  cmpxchg weak volatile ptr %p, i8 0, i8 1 acq_rel monotonic
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 4)
; CHECK-NEXT: cmpxchg ptr %p, i128 0, i128 1 seq_cst seq_cst
  cmpxchg ptr %p, i128 0, i128 1 seq_cst seq_cst
; A volatile atomic is one access, of the atomic kind.
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 1)
; CHECK-NEXT: load atomic volatile i16, ptr %p acquire
  load atomic volatile i16, ptr %p acquire, align 2
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 2)
; CHECK-NEXT: store atomic volatile i64 1, ptr %p release
  store atomic volatile i64 1, ptr %p release, align 8
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 1)
; CHECK-NEXT: load atomic ptr, ptr %p syncscope("singlethread") monotonic
  load atomic ptr, ptr %p syncscope("singlethread") monotonic, align 8
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 1)
; CHECK-NEXT: load atomic i32, ptr %p unordered
  load atomic i32, ptr %p unordered, align 4
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 7)
; CHECK-NEXT: load volatile <4 x i32>, ptr %p
  load volatile <4 x i32>, ptr %p, align 16
; CHECK-NEXT: fence syncscope("singlethread") acquire
  fence syncscope("singlethread") acquire
; CHECK-NEXT: call void @__detsim_yield_access(ptr null, i32 5)
; CHECK-NEXT: fence release
  fence release
; CHECK-NEXT: load i32, ptr %p
  load i32, ptr %p, align 4
; CHECK-NEXT: ret void
  ret void
}

; CHECK-LABEL: @address_spaces(
define void @address_spaces(ptr addrspace(1) %g, ptr addrspace(256) %seg) {
; CHECK: [[B1:%[0-9]+]] = ptrtoint ptr addrspace(1) %g to i64
; CHECK-NEXT: [[P1:%[0-9]+]] = inttoptr i64 [[B1]] to ptr
; CHECK-NEXT: call void @__detsim_yield_access(ptr [[P1]], i32 3)
; CHECK-NEXT: atomicrmw add ptr addrspace(1) %g, i32 1 seq_cst
  atomicrmw add ptr addrspace(1) %g, i32 1 seq_cst
; CHECK-NEXT: [[B2:%[0-9]+]] = ptrtoint ptr addrspace(256) %seg to i64
; CHECK-NEXT: [[P2:%[0-9]+]] = inttoptr i64 [[B2]] to ptr
; CHECK-NEXT: call void @__detsim_yield_access(ptr [[P2]], i32 8)
; CHECK-NEXT: store volatile i32 0, ptr addrspace(256) %seg
  store volatile i32 0, ptr addrspace(256) %seg, align 4
; CHECK-NEXT: ret void
  ret void
}

; CHECK: declare void @__detsim_yield_access(ptr, i32)
