; Rewrite corners only IR shows:
; - an available_externally body of a table function (glibc's extern
;   inlines, kept for inlining) is a copy of library code: its calls go to
;   __detsim_<name> and the copy is dropped;
; - a module that already declares __detsim_<name> gets one declaration:
;   uses of <name> move to it;
; - an invoke of a REWRITE function is rewritten like a call;
; - memory/nosync/willreturn/nofree/nocallback and nocapture/readonly go
;   from declaration and call sites; nounwind, noundef and align stay.
;
; RUN: %clang -fpass-plugin=%plugin -O0 -S -emit-llvm -x ir %s -o %t.ll
; RUN: FileCheck %s --input-file=%t.ll --implicit-check-not=@usleep --implicit-check-not=@sleep --implicit-check-not=@nanosleep
; RUN: FileCheck %s --input-file=%t.ll --check-prefix=CALL
; RUN: FileCheck %s --input-file=%t.ll --check-prefix=DECL
; RUN: %opt -passes=verify -disable-output %t.ll


define available_externally i32 @usleep(i32 %u) {
  ret i32 0
}

declare i32 @__detsim_sleep(i32)
declare i32 @sleep(i32)
declare i32 @nanosleep(ptr nocapture readonly, ptr nocapture) nounwind willreturn nofree nosync nocallback memory(argmem: readwrite)
declare i32 @__gxx_personality_v0(...)

; CHECK-LABEL: define i32 @f(
define i32 @f(ptr %ts) personality ptr @__gxx_personality_v0 {
; CHECK: call i32 @__detsim_usleep(i32 3)
  %a = call i32 @usleep(i32 3)
; CHECK: call i32 @__detsim_sleep(i32 4)
  %b = call i32 @sleep(i32 4)
; CHECK: call i32 @__detsim_nanosleep(ptr noundef align 8 %ts, ptr null)
; CALL: call i32 @__detsim_nanosleep({{.*}}) [[CALLATTRS:#[0-9]+]]
; CALL: attributes [[CALLATTRS]] = { nounwind }
  %c = call i32 @nanosleep(ptr noundef nocapture readonly align 8 %ts, ptr nocapture null) nounwind willreturn memory(argmem: readwrite)
; CHECK: invoke i32 @__detsim_sleep(i32 5)
  %d = invoke i32 @sleep(i32 5) to label %ok unwind label %bad
ok:
  ret i32 %d
bad:
  %lp = landingpad { ptr, i32 } cleanup
  ret i32 -1
}

; DECL-DAG: declare i32 @__detsim_usleep(i32)
; DECL-DAG: declare i32 @__detsim_sleep(i32)
; DECL-DAG: declare i32 @__detsim_nanosleep(ptr, ptr) [[DECLATTRS:#[0-9]+]]
; DECL: attributes [[DECLATTRS]] = { nounwind }
