//! A bump allocator for tree-sitter, one per thread, emptied after each file.
//!
//! Parsing allocates a heap node for nearly every syntax node, and dropping a tree walks
//! it to free them one by one. With malloc those nodes lie scattered over the heap, so
//! the walk that reads them back (extraction) waits on memory, and the drop costs a
//! second walk. Inside [`scope`], tree-sitter's allocations instead come from this
//! thread's arena: consecutive, so a tree's nodes share cache lines; `free` costs
//! nothing; and the whole file's memory is given back at once when the scope ends.
//!
//! tree-sitter's allocator hooks are process-wide, so the hooks serve every thread and
//! every tree-sitter object: an allocation goes to the calling thread's arena only while
//! that thread is inside a scope, and to malloc otherwise. All arenas are slices of one
//! reserved address range, which is how `free` and `realloc` tell the two kinds apart.
//! Without that range (a platform without mmap or 64-bit addresses, or a failed
//! reservation), or on a thread beyond the last slice, a scope simply runs on malloc.

/// Runs `f` with this thread's tree-sitter allocations in the thread's arena, which is
/// emptied when `f` returns (or unwinds).
///
/// # Safety
/// No tree-sitter object allocated inside the scope (parser, tree, cursor, node string)
/// may be used after it: create the parser inside, and return only data of your own.
/// Conversely, no tree-sitter object created outside the scope may allocate inside it
/// (a parser kept from before would keep arena memory in its buffers).
pub unsafe fn scope<T>(f: impl FnOnce() -> T) -> T {
    #[cfg(all(unix, target_pointer_width = "64"))]
    {
        let _guard = imp::enter();
        f()
    }
    #[cfg(not(all(unix, target_pointer_width = "64")))]
    f()
}

/// Drops a tree made inside the current scope. When all of the scope's memory came from
/// the arena, dropping would only walk the tree to free nodes one by one for nothing,
/// so the tree is forgotten and the scope's end reclaims it; otherwise it is dropped.
pub fn discard(tree: tree_sitter::Tree) {
    #[cfg(all(unix, target_pointer_width = "64"))]
    if imp::all_in_arena() {
        std::mem::forget(tree);
        return;
    }
    drop(tree)
}

/// Bytes tree-sitter holds in this thread's open scope: what the arena has handed out
/// (a bump allocator reuses nothing before the scope ends, so this is everything the
/// scope's parses allocated) and what spilled over to malloc. Deterministic for a given
/// input and tree-sitter version, which makes it the measure of a parse's memory
/// budget. 0 outside a scope, or where there is no arena.
pub fn bytes_in_scope() -> usize {
    #[cfg(all(unix, target_pointer_width = "64"))]
    return imp::bytes_in_scope();
    #[cfg(not(all(unix, target_pointer_width = "64")))]
    0
}

/// Returns to the system what this thread's arena keeps between files, when no scope
/// is open on the thread: for the end of a bulk extraction, after which the arena
/// would otherwise hold its memory idle (8 MB per thread) while the graph is built.
pub fn release_idle() {
    #[cfg(all(unix, target_pointer_width = "64"))]
    imp::release_idle()
}

/// Whether this thread is in a bulk extraction: its arena then keeps 3 MB between files
/// instead of 8. Most files fit in 3 MB, and those that do not re-fault what they need
/// beyond it (a bulk extraction's memory peak is every thread's arena beside every
/// file's facts); a thread that extracts one file at a time (`update_file`) keeps its
/// 8 MB, which spares each file the page faults.
pub fn set_bulk(on: bool) {
    #[cfg(all(unix, target_pointer_width = "64"))]
    imp::set_bulk(on)
}

/// Gives tree-sitter back its own allocator (malloc) until the next scope, for
/// benchmarks that measure tree-sitter as it ships.
///
/// # Safety
/// No scope may be open on any thread, and no tree-sitter object made in one may remain.
pub unsafe fn restore_default_allocator() {
    #[cfg(all(unix, target_pointer_width = "64"))]
    unsafe {
        imp::unhook()
    }
}

#[cfg(all(unix, target_pointer_width = "64"))]
mod imp {
    use std::cell::Cell;
    use std::ffi::c_void;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Mutex, Once};

    /// Address space per thread. A file whose parse needs more spills over to malloc
    /// (unit tests make that happen with a smaller slice).
    const SLICE: usize = if cfg!(test) { 64 << 20 } else { 1 << 30 };
    /// Threads with an arena; more threads run their scopes on malloc.
    const SLICES: usize = 64;
    /// Memory is made usable in steps of this size (the range is reserved inaccessible,
    /// so the reservation itself costs no memory).
    const STEP: usize = 2 << 20;
    /// What an arena keeps in use between files; the excess is returned to the system,
    /// so one huge file does not keep its memory for the rest of the run.
    const KEEP: usize = 8 << 20;
    /// What an arena keeps between files in a bulk extraction (see [`super::set_bulk`]).
    const BULK_KEEP: usize = 3 << 20;
    const ALIGN: usize = 16;

    static BASE: AtomicUsize = AtomicUsize::new(0);
    static NEXT_SLICE: AtomicUsize = AtomicUsize::new(0);
    /// Slices of threads that have ended, for the next threads to take.
    static RETURNED: Mutex<Vec<usize>> = Mutex::new(Vec::new());
    static RESERVE: Once = Once::new();
    /// Whether tree-sitter allocates through the hooks below.
    static HOOKED: AtomicBool = AtomicBool::new(false);
    /// Held while tree-sitter's allocator globals are written.
    static HOOKING: Mutex<()> = Mutex::new(());

    /// This thread's arena. `start == 0` until the thread takes a slice.
    struct Arena {
        start: Cell<usize>,
        /// The next free byte.
        cur: Cell<usize>,
        /// The most recent block, which `realloc` can grow in place and `free` can undo.
        last: Cell<usize>,
        /// End of the usable (read-write) part of the slice.
        usable: Cell<usize>,
        /// Scopes entered and not yet left (nested scopes share the outer one's arena).
        depth: Cell<usize>,
        /// Whether an allocation of the open scope went to malloc (the slice was full).
        spilled: Cell<bool>,
        /// Bytes of the open scope's allocations that went to malloc.
        spilled_bytes: Cell<usize>,
        /// What the arena keeps in use between files: `KEEP`, or `BULK_KEEP`.
        keep: Cell<usize>,
    }

    /// Gives the thread's slice back when the thread ends (threads come and go in
    /// servers and test harnesses; slices must not run out).
    struct SliceOwner;

    impl Drop for SliceOwner {
        fn drop(&mut self) {
            let _ = ARENA.try_with(|a| {
                let start = a.start.get();
                if start == 0 {
                    return;
                }
                // SAFETY: the thread is ending, so no scope of it is open.
                unsafe { release(start, a.usable.get()) };
                a.start.set(0);
                let slice = (start - BASE.load(Ordering::Relaxed)) / SLICE;
                RETURNED
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(slice);
            });
        }
    }

    /// Makes `[from, to)` inaccessible again and returns its memory to the system.
    ///
    /// # Safety
    /// Nothing may point into the range.
    unsafe fn release(from: usize, to: usize) {
        if to > from {
            unsafe {
                libc::mprotect(from as *mut c_void, to - from, libc::PROT_NONE);
                libc::madvise(from as *mut c_void, to - from, libc::MADV_DONTNEED);
            }
        }
    }

    thread_local! {
        static OWNER: SliceOwner = const { SliceOwner };
        static ARENA: Arena = const {
            Arena {
                start: Cell::new(0),
                cur: Cell::new(0),
                last: Cell::new(0),
                usable: Cell::new(0),
                depth: Cell::new(0),
                spilled: Cell::new(false),
                spilled_bytes: Cell::new(0),
                keep: Cell::new(KEEP),
            }
        };
    }

    pub(super) struct Guard;

    pub(super) fn enter() -> Option<Guard> {
        RESERVE.call_once(reserve);
        let base = BASE.load(Ordering::Relaxed);
        if base == 0 {
            return None;
        }
        hook();
        ARENA.with(|a| {
            if a.start.get() == 0 {
                let returned = RETURNED.lock().unwrap_or_else(|e| e.into_inner()).pop();
                let slice = returned.unwrap_or_else(|| NEXT_SLICE.fetch_add(1, Ordering::Relaxed));
                if slice >= SLICES {
                    return None;
                }
                // Registers the owner, whose drop at thread end gives the slice back.
                if OWNER.try_with(|_| ()).is_err() {
                    return None;
                }
                let start = base + slice * SLICE;
                a.start.set(start);
                a.cur.set(start);
                a.usable.set(start);
            }
            a.depth.set(a.depth.get() + 1);
            Some(Guard)
        })
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            ARENA.with(|a| {
                let depth = a.depth.get() - 1;
                a.depth.set(depth);
                if depth > 0 {
                    return;
                }
                let start = a.start.get();
                a.cur.set(start);
                a.last.set(0);
                a.spilled.set(false);
                a.spilled_bytes.set(0);
                let keep = start + a.keep.get();
                if a.usable.get() > keep {
                    // SAFETY: the range lies in this thread's slice, and the scope that
                    // used it has ended, so nothing points into it.
                    unsafe { release(keep, a.usable.get()) };
                    a.usable.set(keep);
                }
            })
        }
    }

    pub(super) fn set_bulk(on: bool) {
        ARENA.with(|a| a.keep.set(if on { BULK_KEEP } else { KEEP }));
    }

    pub(super) fn release_idle() {
        ARENA.with(|a| {
            let start = a.start.get();
            if a.depth.get() == 0 && start != 0 && a.usable.get() > start {
                // SAFETY: no scope is open on this thread, so nothing points into its
                // arena (scopes' objects may not outlive them).
                unsafe { release(start, a.usable.get()) };
                a.usable.set(start);
            }
        })
    }

    /// Reserves the address range; leaves BASE at 0 on failure.
    fn reserve() {
        // SAFETY: an anonymous, inaccessible mapping; nothing else refers to it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                SLICE * SLICES,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base != libc::MAP_FAILED {
            BASE.store(base as usize, Ordering::Relaxed);
        }
    }

    /// Installs the hooks if they are not in place.
    fn hook() {
        if HOOKED.load(Ordering::Acquire) {
            return;
        }
        let _writing = HOOKING.lock().unwrap_or_else(|e| e.into_inner());
        if !HOOKED.load(Ordering::Acquire) {
            // SAFETY: the hooks accept every pointer tree-sitter already holds (those are
            // outside the range and go to libc), so they can replace the defaults at any
            // time; the lock keeps two threads from writing tree-sitter's globals at once.
            unsafe {
                tree_sitter::set_allocator(Some(malloc), Some(calloc), Some(realloc), Some(free));
            }
            HOOKED.store(true, Ordering::Release);
        }
    }

    /// See [`super::restore_default_allocator`].
    pub(super) unsafe fn unhook() {
        let _writing = HOOKING.lock().unwrap_or_else(|e| e.into_inner());
        if HOOKED.load(Ordering::Acquire) {
            unsafe { tree_sitter::set_allocator(None, None, None, None) };
            HOOKED.store(false, Ordering::Release);
        }
    }

    /// How much of this thread's slice is usable now (test probe).
    #[cfg(test)]
    pub(super) fn usable() -> usize {
        ARENA.with(|a| a.usable.get() - a.start.get())
    }

    pub(super) fn bytes_in_scope() -> usize {
        ARENA.with(|a| {
            if a.active() && a.start.get() != 0 {
                a.cur.get() - a.start.get() + a.spilled_bytes.get()
            } else {
                0
            }
        })
    }

    /// Whether this thread is in a scope that has kept all its memory in the arena.
    pub(super) fn all_in_arena() -> bool {
        ARENA.with(|a| a.active() && !a.spilled.get())
    }

    fn in_arenas(p: usize) -> bool {
        let base = BASE.load(Ordering::Relaxed);
        p >= base && p < base + SLICE * SLICES
    }

    impl Arena {
        fn active(&self) -> bool {
            self.depth.get() > 0
        }

        fn owns(&self, p: usize) -> bool {
            let start = self.start.get();
            start != 0 && p >= start && p < start + SLICE
        }

        /// Makes `[.., end)` usable; false when the slice is exhausted or the system says no.
        fn reach(&self, end: usize) -> bool {
            let usable = self.usable.get();
            if end <= usable {
                return true;
            }
            if end > self.start.get() + SLICE {
                return false;
            }
            let grow_to = (end.next_multiple_of(STEP)).min(self.start.get() + SLICE);
            // SAFETY: the range lies in this thread's slice of the reservation.
            let ok = unsafe {
                libc::mprotect(
                    usable as *mut c_void,
                    grow_to - usable,
                    libc::PROT_READ | libc::PROT_WRITE,
                )
            } == 0;
            if ok {
                self.usable.set(grow_to);
            }
            ok
        }

        fn bump(&self, size: usize) -> Option<usize> {
            let p = self.cur.get();
            let end = size
                .max(1)
                .checked_next_multiple_of(ALIGN)
                .and_then(|s| p.checked_add(s));
            let Some(end) = end.filter(|&end| self.reach(end)) else {
                self.spilled.set(true);
                self.spilled_bytes
                    .set(self.spilled_bytes.get().saturating_add(size));
                return None;
            };
            self.cur.set(end);
            self.last.set(p);
            Some(p)
        }
    }

    unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
        let p = ARENA.with(|a| if a.active() { a.bump(size) } else { None });
        match p {
            Some(p) => p as *mut c_void,
            None => libc::malloc(size),
        }
    }

    unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
        let Some(total) = count.checked_mul(size) else {
            return std::ptr::null_mut();
        };
        let p = ARENA.with(|a| if a.active() { a.bump(total) } else { None });
        match p {
            Some(p) => {
                // Arena memory is reused from file to file: zero it.
                std::ptr::write_bytes(p as *mut u8, 0, total);
                p as *mut c_void
            }
            None => libc::calloc(count, size),
        }
    }

    unsafe extern "C" fn realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
        if ptr.is_null() {
            return malloc(size);
        }
        let p = ptr as usize;
        if !in_arenas(p) {
            return libc::realloc(ptr, size);
        }
        ARENA.with(|a| {
            if !(a.active() && a.owns(p)) {
                // Blocks never leave their scope or thread; if one did, this is a bug
                // that must not turn into silent memory corruption.
                eprintln!("blast-radius: tree-sitter memory used outside its arena scope");
                std::process::abort();
            }
            let cur = a.cur.get();
            if p == a.last.get() {
                // The newest block grows (or shrinks) in place.
                let end = size
                    .max(1)
                    .checked_next_multiple_of(ALIGN)
                    .and_then(|s| p.checked_add(s));
                if let Some(end) = end.filter(|&end| a.reach(end)) {
                    a.cur.set(end);
                    return ptr;
                }
            }
            // The old block's size is unknown, but it ends before `cur`.
            let keep = size.min(cur - p);
            let new = match a.bump(size) {
                Some(n) => n as *mut c_void,
                None => libc::malloc(size),
            };
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr as *const u8, new as *mut u8, keep);
            }
            new
        })
    }

    unsafe extern "C" fn free(ptr: *mut c_void) {
        let p = ptr as usize;
        if p == 0 {
            return;
        }
        if !in_arenas(p) {
            return libc::free(ptr);
        }
        // Arena blocks are given back with the scope; the newest one can be given back now.
        ARENA.with(|a| {
            if a.active() && p == a.last.get() {
                a.cur.set(p);
                a.last.set(0);
            }
        })
    }
}

#[cfg(all(test, unix, target_pointer_width = "64"))]
mod tests {
    use tree_sitter::Parser;

    use super::{discard, imp, release_idle, scope, set_bulk};
    use crate::indexer::Language;

    fn parse(language: Language, source: &str) -> tree_sitter::Tree {
        let mut parser = Parser::new();
        parser.set_language(&language.grammar()).unwrap();
        parser.parse(source, None).unwrap()
    }

    fn sexp(source: &str) -> String {
        parse(Language::TypeScript, source).root_node().to_sexp()
    }

    #[test]
    fn trees_parsed_in_scopes_equal_trees_parsed_on_malloc() {
        let sources = [
            "function f(a: number) { return g(a) + 1 }",
            "class A extends B { m() { this.x?.y(); } }",
            // Errors make the parser allocate, free and reallocate more.
            "const x = { a: 1, b: ; function (",
            &"let v = [1, 2, 3].map(x => x * 2);\n".repeat(2_000),
        ];
        for source in sources {
            let plain = sexp(source);
            // SAFETY: the parser and its tree live and die inside the scope.
            let scoped = unsafe { scope(|| sexp(source)) };
            assert_eq!(plain, scoped);
            // Again: this parse reuses the memory the last one left dirty, and forgets
            // its tree instead of dropping it.
            let again = unsafe {
                scope(|| {
                    assert!(imp::all_in_arena());
                    let tree = parse(Language::TypeScript, source);
                    let s = tree.root_node().to_sexp();
                    discard(tree);
                    s
                })
            };
            assert_eq!(plain, again);
        }
    }

    #[test]
    fn a_parse_larger_than_the_slice_spills_to_malloc_and_the_arena_shrinks_after() {
        // About 110 MB of syntax tree: more than a test build's 64 MiB slice.
        let big = "export const f = (a, b) => g(a, [b, { c: a }]);\n".repeat(20_000);
        let plain = parse(Language::JavaScript, &big).root_node().to_sexp();
        // SAFETY: the parser and the tree live and die inside the scope.
        let scoped = unsafe {
            scope(|| {
                let tree = parse(Language::JavaScript, &big);
                assert!(!imp::all_in_arena(), "the parse spilled");
                let s = tree.root_node().to_sexp();
                // Holds malloc blocks now: dropped, not forgotten.
                discard(tree);
                s
            })
        };
        assert_eq!(plain, scoped);
        assert!(imp::usable() <= 8 << 20, "what the arena keeps is bounded");
        let small = "f(1)";
        assert_eq!(unsafe { scope(|| sexp(small)) }, sexp(small));
    }

    #[test]
    fn a_bulk_extraction_keeps_less_of_the_arena_between_files() {
        // Some 20 MB of syntax tree: more than either keep.
        let big = "export const f = (a, b) => g(a, [b, { c: a }]);\n".repeat(4_000);
        let parsed = parse(Language::JavaScript, &big).root_node().to_sexp();
        // SAFETY: the trees live and die inside their scopes.
        let scoped =
            || unsafe { scope(|| parse(Language::JavaScript, &big).root_node().to_sexp()) };
        assert_eq!(scoped(), parsed);
        let alone = imp::usable();
        assert!(
            alone > 3 << 20 && alone <= 8 << 20,
            "one file at a time keeps 8 MB: {alone}"
        );
        set_bulk(true);
        assert_eq!(scoped(), parsed);
        let bulk = imp::usable();
        set_bulk(false);
        assert!(bulk <= 3 << 20, "a bulk extraction keeps 3 MB: {bulk}");
        assert_eq!(scoped(), parsed);
        assert_eq!(imp::usable(), alone, "and one file at a time 8 MB again");
    }

    #[test]
    fn an_idle_arena_gives_its_memory_back_and_works_after() {
        let source = "export const f = (a, b) => g(a, [b, { c: a }]);\n".repeat(200);
        // SAFETY: the trees live and die inside their scopes.
        let first = unsafe { scope(|| sexp(&source)) };
        assert!(imp::usable() > 0, "the arena keeps memory between files");
        release_idle();
        assert_eq!(imp::usable(), 0, "and gives it back when idle");
        assert_eq!(unsafe { scope(|| sexp(&source)) }, first);
        // Inside a scope, nothing is released.
        unsafe {
            scope(|| {
                let tree = parse(Language::TypeScript, &source);
                release_idle();
                assert_eq!(tree.root_node().to_sexp(), first);
            })
        }
    }

    #[test]
    fn nested_scopes_share_the_outer_arena() {
        let (outer, inner) = ("a.b(c)", "new D(e)");
        // SAFETY: both trees live and die inside the outer scope.
        unsafe {
            scope(|| {
                let tree = parse(Language::JavaScript, outer);
                let nested = scope(|| sexp(inner));
                assert_eq!(nested, sexp(inner));
                // The inner scope's end did not hand the outer tree's memory out again.
                let _overwrite = parse(Language::JavaScript, &"x(y);".repeat(1_000));
                assert_eq!(tree.root_node().to_sexp(), sexp(outer));
            })
        }
    }

    #[test]
    fn ended_threads_give_their_slice_back() {
        // More threads than there are slices, one after the other: each finds one.
        for _ in 0..100 {
            std::thread::spawn(|| unsafe { scope(imp::all_in_arena) })
                .join()
                .map(|in_arena| assert!(in_arena))
                .unwrap();
        }
    }
}
