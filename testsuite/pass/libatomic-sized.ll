; The sized libatomic entry points (__atomic_fetch_add_16(ptr, ...)) take
; the object as argument 0; the generic ones take it as argument 1.  Calls
; to both get a yield point (LIBATOMIC_CALL = 6) naming the object; an
; address in another address space is flattened to ptr.  A function the
; module defines under a libatomic name is its own and is left alone.
;
; RUN: %clang -fpass-plugin=%plugin -O0 -S -emit-llvm -x ir %s -o - | FileCheck %s


@x = global i128 0, align 16

declare i128 @__atomic_fetch_add_16(ptr, i128, i32)
declare i32 @__atomic_load_4(ptr, i32)
declare void @__atomic_store_1(ptr addrspace(1), i8, i32)
declare i1 @__atomic_compare_exchange_8(ptr, ptr, i64, i32, i32)
declare void @__atomic_exchange(i64, ptr, ptr, ptr, i32)

define i32 @__atomic_nand_fetch_4(ptr %p, i32 %v, i32 %o) {
  ret i32 0
}

; CHECK-LABEL: @sized(
define i128 @sized(ptr %p, ptr addrspace(1) %q, ptr %e, ptr %r) {
; CHECK: call void @__detsim_yield_access(ptr @x, i32 6)
; CHECK-NEXT: call i128 @__atomic_fetch_add_16(ptr @x, i128 1, i32 5)
  %a = call i128 @__atomic_fetch_add_16(ptr @x, i128 1, i32 5)
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 6)
; CHECK-NEXT: call i32 @__atomic_load_4(ptr %p, i32 2)
  %b = call i32 @__atomic_load_4(ptr %p, i32 2)
; CHECK-NEXT: [[BITS:%[0-9]+]] = ptrtoint ptr addrspace(1) %q to i64
; CHECK-NEXT: [[FLAT:%[0-9]+]] = inttoptr i64 [[BITS]] to ptr
; CHECK-NEXT: call void @__detsim_yield_access(ptr [[FLAT]], i32 6)
; CHECK-NEXT: call void @__atomic_store_1(ptr addrspace(1) %q, i8 0, i32 3)
  call void @__atomic_store_1(ptr addrspace(1) %q, i8 0, i32 3)
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 6)
; CHECK-NEXT: call i1 @__atomic_compare_exchange_8(ptr %p,
  %c = call i1 @__atomic_compare_exchange_8(ptr %p, ptr %e, i64 1, i32 5, i32 5)
; CHECK-NEXT: call void @__detsim_yield_access(ptr %p, i32 6)
; CHECK-NEXT: call void @__atomic_exchange(i64 24, ptr %p, ptr %e, ptr %r, i32 5)
  call void @__atomic_exchange(i64 24, ptr %p, ptr %e, ptr %r, i32 5)
; CHECK-NEXT: call i32 @__atomic_nand_fetch_4(
  %d = call i32 @__atomic_nand_fetch_4(ptr %p, i32 1, i32 5)
; CHECK-NEXT: ret i128
  ret i128 %a
}
