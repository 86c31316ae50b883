//! `grouped`: several components in one buffer of tuples, indexed by id (AoS).
//!
//! Each member keeps its own presence bit, so an entity may hold some members
//! of a group and not others. Members are reached through raw pointers to
//! their field, never through a reference to the whole tuple, so one system
//! may write one member of an entity while another reads a different member.

use super::drops::drop_each;
use super::slots::Slots;
use super::{Column, Storage};
use crate::bounds::ComponentBounds;
use crate::error::EntityLimit;
use crate::handle::EntityId;
use core::alloc::Layout;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ptr::{addr_of_mut, NonNull};

/// A tuple of component types stored together: `(A, B)` up to eight members.
///
/// It asks nothing of its members beyond `'static`: whether each is `Send +
/// Sync` is checked once per member, where its column is used as a
/// [`Column`] (a member that is not fails there, on its own name, and the
/// group's other members do not fail with it).
///
/// # Safety
/// `Slots` is a tuple with one `MaybeUninit` field per member, and
/// `drop_members` drops exactly the members whose bit is set.
///
/// ```
/// use ecs::storage::{Group, Member};
/// use std::rc::Rc;
///
/// type G = (f32, Rc<()>);
/// assert_eq!(<G as Group>::LEN, 2);
///
/// // Write member 1 into uninitialised slots, then drop it alone.
/// let shared = Rc::new(());
/// let mut slots = G::uninit();
/// // SAFETY: `slots` is a live `G::Slots`.
/// let member = unsafe { <G as Member<1>>::project(&mut slots) };
/// // SAFETY: `member` points into `slots`, which outlives this write.
/// unsafe { (*member).write(shared.clone()) };
/// assert_eq!(Rc::strong_count(&shared), 2);
/// // SAFETY: member 1 (bit 1) is initialised and not used again.
/// unsafe { G::drop_members(&mut slots, 0b10) };
/// assert_eq!(Rc::strong_count(&shared), 1);
/// ```
pub unsafe trait Group: 'static {
    /// One possibly-uninitialised field per member.
    type Slots;
    /// Number of members.
    const LEN: usize;
    /// Slots with every member uninitialised.
    ///
    /// See [the trait's example](Group), which calls it.
    fn uninit() -> Self::Slots;
    /// Drops the members whose bit is set in `mask`.
    ///
    /// See [the trait's example](Group), which calls it.
    ///
    /// # Safety
    /// `slots` is valid for writes and each member named by `mask` is
    /// initialised; none is used again before being rewritten.
    unsafe fn drop_members(slots: *mut Self::Slots, mask: u8);
}

/// Member `I` of a group.
///
/// # Safety
/// `project` returns the address of field `I` of the slots, whose type is
/// `MaybeUninit<Self::Item>`, and distinct `I` give disjoint fields.
///
/// ```
/// use ecs::storage::Member;
///
/// /// The name of member 1's type.
/// fn second<G: Member<1>>() -> &'static str {
///     std::any::type_name::<G::Item>()
/// }
///
/// assert_eq!(second::<(f32, u8)>(), "u8");
/// ```
pub unsafe trait Member<const I: usize>: Group {
    /// The member's component type.
    type Item: 'static;
    /// The address of member `I` within `slots`, without creating a reference.
    ///
    /// See [`Group`]'s example, which calls it.
    ///
    /// # Safety
    /// `slots` points to a live `Self::Slots`.
    unsafe fn project(slots: *mut Self::Slots) -> *mut MaybeUninit<Self::Item>;
}

macro_rules! group {
    ($len:literal; $($T:ident $i:tt),+) => {
        // SAFETY: `Slots` has one `MaybeUninit` field per member; the mask
        // bit `i` guards field `i`.
        unsafe impl<$($T: 'static),+> Group for ($($T,)+) {
            type Slots = ($(MaybeUninit<$T>,)+);
            const LEN: usize = $len;
            fn uninit() -> Self::Slots {
                ($(MaybeUninit::<$T>::uninit(),)+)
            }
            unsafe fn drop_members(slots: *mut Self::Slots, mask: u8) {
                $(
                    if mask & (1 << $i) != 0 {
                        // SAFETY: the caller guarantees member `$i` is
                        // initialised and `slots` valid for writes.
                        unsafe { (*addr_of_mut!((*slots).$i)).assume_init_drop() };
                    }
                )+
            }
        }
        group!(@members ($($T),+); $($T $i),+);
    };
    (@members $all:tt; $($T:ident $i:tt),+) => {
        $( group!(@member $all; $T $i); )+
    };
    (@member ($($A:ident),+); $T:ident $i:tt) => {
        // SAFETY: field `$i` of the slots tuple is `MaybeUninit<$T>`.
        unsafe impl<$($A: 'static),+> Member<$i> for ($($A,)+) {
            type Item = $T;
            #[inline]
            unsafe fn project(slots: *mut Self::Slots) -> *mut MaybeUninit<$T> {
                // SAFETY: the caller guarantees `slots` points to live slots;
                // `addr_of_mut!` creates no reference.
                unsafe { addr_of_mut!((*slots).$i) }
            }
        }
    };
}

group!(2; A 0, B 1);
group!(3; A 0, B 1, C 2);
group!(4; A 0, B 1, C 2, D 3);
group!(5; A 0, B 1, C 2, D 3, E 4);
group!(6; A 0, B 1, C 2, D 3, E 4, F 5);
group!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
group!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// Moves member `bit` of cell `f` to cell `t`, with its bit: the part of
/// `GroupColumn::relocate` that does not depend on the types (moving a value
/// is copying its bytes), compiled once. An unclaimed value at `t` goes to
/// `f` in exchange: nothing is dropped.
///
/// # Safety
/// `from` and `to` point to the member's field (`size` bytes, valid for
/// reads and writes, not overlapping) in cells `f` and `t`; `masks[i]` has
/// `bit` set exactly when cell `i`'s member is initialised, and `f`'s is.
#[inline(never)]
unsafe fn move_member(from: *mut u8, to: *mut u8, size: usize, masks: &mut [u8], bit: u8, f: usize, t: usize) {
    if masks[t] & bit != 0 {
        // An unclaimed value at `to`: the two swap, nothing is dropped.
        // SAFETY: two distinct fields, both initialised; the swap is untyped,
        // as moving values is, and both bits stay set.
        unsafe { core::ptr::swap_nonoverlapping(from, to, size) };
    } else {
        // SAFETY: the member of `f` is initialised and that of `t` is not:
        // the value moves (an untyped copy), and the bits say so below, so
        // `f`'s bytes are not read as a value again before being rewritten.
        unsafe { super::contiguous::copy_bytes(from, to, size) };
        masks[f] &= !bit;
        masks[t] |= bit;
    }
}

/// One buffer of tuples for a group of components.
///
/// Invariants: `slots` has `G::Slots`' layout; `masks[id]` has bit `i` set
/// exactly when member `i` of slot `id` is initialised; `slots.len() ==
/// masks.len()`; with a fixed limit both were sized for the limit at
/// creation and never reallocate.
///
/// The tuples live in the untyped buffer of the other storages (`Slots`),
/// not a `Vec<UnsafeCell<G::Slots>>`: the `Vec`'s growth, drop and type
/// tree (`Vec`, `RawVec`, `UnsafeCell`, the tuple of `MaybeUninit`s, each
/// member's `ManuallyDrop` and `MaybeDangling`) were compiled, and
/// described in every codegen unit of a debug build, for every group.
///
/// A declaration's `(A, B): grouped;` stores `A` and `B` in one `Grouped<(A,
/// B)>`, each reached as a [`GroupColumn`]:
///
/// ```
/// pub struct Position(pub f32);
/// pub struct Velocity(pub f32);
///
/// ecs::declare_context! {
///     pub context World {
///         components { (Position, Velocity): grouped; }
///         systems {}
///     }
/// }
///
/// let mut world = World::new();
/// let e = world.step(|p| p.spawn((Position(1.0),)).unwrap());
/// world.step(|p| {
///     assert!(!p.has::<Velocity>(e)); // each member has its own presence bit
///     p.add(e, Velocity(2.0)).unwrap();
///     assert_eq!(p.get::<Velocity>(e).map(|v| v.0), Some(2.0));
/// });
/// ```
// `repr(C)`: its first two fields are laid out as a `GroupCells`' whatever
// `G`, which `relocate_grouped` reaches untyped.
#[repr(C)]
pub struct Grouped<G: Group> {
    slots: Slots,
    masks: Vec<u8>,
    /// The storage owns `G`'s members, and is invariant in `G` as the
    /// `UnsafeCell`s it stands for (members written through a shared
    /// borrow) would make it.
    _values: PhantomData<UnsafeCell<G>>,
}

// SAFETY: every member value a `Grouped<G>` ever holds is of a `Send + Sync`
// type, though `G` as a whole may not be: `new` requires `G: Send + Sync`;
// `new_checked` (for a context's group) requires every member to be a
// component, whose `Column` stores `Send + Sync` items; and a standalone
// [`GroupColumn<G, I>`] (whose `Storage::new` requires member `I` to be
// `Send + Sync`) wraps its `Grouped` privately and only ever initialises
// member `I`. Uninitialised slots of other members hold no value to send or
// share. So moving the buffers to another thread moves (and later drops)
// only `Send` values.
unsafe impl<G: Group> Send for Grouped<G> {}
// SAFETY: shared access reads members or hands out raw pointers to single
// members, whose writes the scheduler coordinates per id and component; the
// values reached are of `Send + Sync` types (see `Send` above).
unsafe impl<G: Group> Sync for Grouped<G> {}

impl<G: Group> Grouped<G> {
    /// An empty group storage for the given limit.
    ///
    /// # Examples
    /// ```
    /// use ecs::storage::{Column, Grouped};
    /// use ecs::{EntityId, EntityLimit};
    ///
    /// let mut group = Grouped::<(u32, String)>::new(EntityLimit::Fixed(4));
    /// let id = EntityId::from_bits(1);
    /// // Each member is a column of its own, with its own presence.
    /// assert_eq!(group.column_mut::<0>().insert(id, 5), None);
    /// assert_eq!(group.column::<0>().get(id), Some(&5));
    /// assert!(!group.column::<1>().contains(id));
    /// group.column_mut::<1>().insert(id, "five".to_string());
    /// assert_eq!(group.column::<1>().get(id).map(String::as_str), Some("five"));
    /// assert_eq!(group.column_mut::<0>().remove(id), Some(5));
    /// assert!(group.column::<1>().contains(id));
    /// ```
    pub fn new(limit: EntityLimit) -> Self
    where
        G: Send + Sync,
    {
        Self::new_unchecked(limit)
    }

    /// An empty group storage, its members' `Send + Sync` not checked here.
    ///
    /// Crate-private: each caller makes sure that every member the storage
    /// will hold is `Send + Sync` (see `Grouped`'s `Send` impl).
    pub(crate) fn new_unchecked(limit: EntityLimit) -> Self {
        // A constant, as in `Contiguous::new`. The untyped fields built by
        // one function, then moved (no call while one is live): built
        // here, the slots made before the masks had a landing pad per
        // group type (see `SparseSetStorage::new`).
        let GroupCells { slots, masks } =
            GroupCells::new(const { Layout::new::<G::Slots>() }, limit.initial_capacity());
        Self {
            slots,
            masks,
            _values: PhantomData,
        }
    }

    fn grow_to(&mut self, len: usize) {
        if len > self.slots.len() {
            // The new slots are uninitialised, their members' bits clear.
            self.slots.grow_to(len);
            self.masks.resize(len, 0);
        }
    }

    /// Slot `i`: a raw pointer into the buffer (never a reference), so that
    /// members are written under a shared borrow and one member's pointer
    /// never covers another's.
    ///
    /// # Safety
    /// `i < slots.len()`.
    #[inline(always)]
    unsafe fn slot(&self, i: usize) -> *mut G::Slots {
        // SAFETY: `i < slots.len()` (the caller's contract): an in-bounds
        // offset of slots of `G::Slots`' layout (the invariant).
        unsafe { (self.slots.base().as_ptr() as *mut G::Slots).add(i) }
    }

    /// Slot `i` for the member of mask bit `bit`, grown for, the bit set;
    /// and whether it was set before (the member initialised). The start of
    /// each member's `insert` and `insert_new`, compiled once per group
    /// rather than per member.
    #[inline]
    fn claim(&mut self, i: usize, bit: u8) -> (*mut G::Slots, bool) {
        if i >= self.slots.len() {
            self.grow_for(i);
        }
        let was = set_bit(&mut self.masks, i, bit);
        // SAFETY: `i < slots.len()`: grown above.
        (unsafe { self.slot(i) }, was)
    }

    /// The column of member `I`.
    ///
    /// # Examples
    /// ```
    /// use ecs::storage::{Column, Grouped, Storage};
    /// use ecs::{EntityId, EntityLimit};
    ///
    /// let mut group = Grouped::<(u32, char)>::new(EntityLimit::Fixed(4));
    /// let id = EntityId::from_bits(2);
    /// group.column_mut::<1>().insert(id, 'x');
    /// assert_eq!(group.column::<1>().get(id), Some(&'x'));
    /// assert!(!group.column::<0>().contains(id)); // members are present apart
    /// ```
    #[inline]
    pub fn column<const I: usize>(&self) -> &GroupColumn<G, I>
    where
        G: Member<I>,
    {
        // A `transmute` of the reference, not a dereference of a cast
        // pointer: a debug build checks every dereference of a raw pointer
        // (alignment and null), in this function compiled per grouped
        // component (COMPILE_COST.md, eighteenth round).
        // SAFETY: `GroupColumn` is a `repr(transparent)` wrapper of `Self`.
        unsafe { core::mem::transmute::<&Self, &GroupColumn<G, I>>(self) }
    }

    /// The column of member `I`, mutably.
    ///
    /// # Examples
    /// ```
    /// use ecs::storage::{Column, Grouped, Storage};
    /// use ecs::{EntityId, EntityLimit};
    ///
    /// let mut group = Grouped::<(u32, char)>::new(EntityLimit::Fixed(4));
    /// let id = EntityId::from_bits(2);
    /// group.column_mut::<0>().insert(id, 7);
    /// *group.column_mut::<0>().get_mut(id).unwrap() += 1;
    /// assert_eq!(group.column::<0>().get(id), Some(&8));
    /// ```
    #[inline]
    pub fn column_mut<const I: usize>(&mut self) -> &mut GroupColumn<G, I>
    where
        G: Member<I>,
    {
        // A `transmute`, as in `column`.
        // SAFETY: `GroupColumn` is a `repr(transparent)` wrapper of `Self`.
        unsafe { core::mem::transmute::<&mut Self, &mut GroupColumn<G, I>>(self) }
    }

    #[inline]
    fn has(&self, id: EntityId, member: usize) -> bool {
        has_bit(&self.masks, id.index(), member)
    }

    /// Makes room for cell `i`: doubling, as `insert` and `relocate` grow.
    /// Cold and out of line, compiled once per group (not per member).
    #[cold]
    #[inline(never)]
    fn grow_for(&mut self, i: usize) {
        self.grow_to((i + 1).max(self.slots.len() * 2));
    }
}

/// Whether `masks[i]` has bit `member` set (`false` past the end): not
/// generic, so that no closure is compiled per group.
#[inline]
fn has_bit(masks: &[u8], i: usize, member: usize) -> bool {
    match masks.get(i) {
        Some(m) => m & (1 << member) != 0,
        None => false,
    }
}

/// Sets `bit` of `masks[i]`, returning whether it was set: not generic.
///
/// # Panics
/// When `i` is past the end.
#[inline]
fn set_bit(masks: &mut [u8], i: usize, bit: u8) -> bool {
    let was = masks[i] & bit != 0;
    masks[i] |= bit;
    was
}

/// Clears `bit` of `masks[i]`, if `i` is in range: not generic.
#[inline]
fn clear_bit(masks: &mut [u8], i: usize, bit: u8) {
    if let Some(m) = masks.get_mut(i) {
        *m &= !bit;
    }
}

impl<G: Group> Drop for Grouped<G> {
    fn drop(&mut self) {
        // Members without drop glue: the buffers free the memory, and no
        // code is compiled for them here.
        if const { !core::mem::needs_drop::<G>() } {
            return;
        }
        let Self { masks, .. } = &*self;
        // Every member of every id, one at a time, so that a panicking
        // `drop` stops no other (not even the next member of its tuple).
        let members = masks.iter().enumerate().flat_map(|(i, &mask)| {
            let mut left = mask;
            core::iter::from_fn(move || {
                let bit = left & left.wrapping_neg();
                left &= !bit;
                (bit != 0).then_some((i, bit))
            })
        });
        drop_each(members, |(i, bit)| {
            // SAFETY: `i < masks.len() == slots.len()`; the mask names
            // exactly the initialised members, and each member is yielded
            // (and dropped) once; the storage is not used after its `drop`.
            unsafe { G::drop_members(self.slot(i), bit) }
        });
    }
}

/// The fields of a [`Grouped`] that do not depend on its members' types,
/// laid out as its first fields (both `repr(C)`).
#[repr(C)]
struct GroupCells {
    slots: Slots,
    masks: Vec<u8>,
}

impl GroupCells {
    /// Empty cells for `len` slots of layout `item`, their masks clear.
    #[inline(never)]
    fn new(item: Layout, len: usize) -> Self {
        Self {
            slots: Slots::new(item, len),
            masks: vec![0; len],
        }
    }
}

/// [`Column::relocate`] (and so [`Column::swap`]) of a grouped member, whatever
/// its group and type: the arm that the declaration's `relocate_component`
/// and `swap_component` share between all its grouped members (see
/// [`discard_contiguous`](super::discard_contiguous)). `offset` is the
/// byte offset of the member's `Grouped` in `storages`, `member` the
/// member's byte offset within a slot, its size and its mask bit.
///
/// # Safety
/// `storages` is valid for reads and writes, and nothing else accesses
/// it during the call; the bytes at `offset` from it hold a live
/// `Grouped<G>` (of any `G`), a member of which is at byte `member.0` of
/// each `G::Slots`, `member.1` bytes, its mask bit `member.2`.
#[doc(hidden)]
// Inlined in an optimised build only: a debug build calls the copy in
// `ecs-core` rather than compile one in the declaring crate.
#[cfg_attr(not(debug_assertions), inline)]
pub unsafe fn relocate_grouped(
    storages: *mut u8,
    offset: usize,
    member: (usize, usize, u8),
    from: EntityId,
    to: EntityId,
) {
    // SAFETY: a `Grouped<G>` at `offset` of `storages` (the caller's
    // contract), exclusively accessible, starts with a `GroupCells`' fields
    // (both `repr(C)`, `Grouped`'s last field a zero-sized `PhantomData`).
    let g = unsafe { &mut *(storages.add(offset) as *mut GroupCells) };
    let (f, t) = (from.index(), to.index());
    let (at, size, bit) = member;
    if f == t || g.masks.get(f).is_none_or(|m| m & bit == 0) {
        return;
    }
    if t >= g.slots.len() {
        // Grown as `Grouped::grow_for` does (doubling); new bits clear.
        let len = (t + 1).max(g.slots.len() * 2);
        g.slots.grow_to(len);
        g.masks.resize(len, 0);
    }
    let slot = g.slots.item_size();
    let base = g.slots.base().as_ptr();
    // SAFETY: `f` (whose member is present, so `f < masks.len() ==
    // slots.len()`) and `t` (grown above) are live slots of `slot` bytes;
    // the member's field is at byte `at` of each (the caller's contract).
    let (pf, pt) = unsafe { (base.add(f * slot + at), base.add(t * slot + at)) };
    // SAFETY: `pf` and `pt` are the member's fields in the distinct cells
    // `f` and `t` (`size` bytes each, not overlapping), `masks` the group's
    // bits, `bit` set exactly for the cells whose member is initialised,
    // and `f`'s is.
    unsafe { move_member(pf, pt, size, &mut g.masks, bit, f, t) };
}

/// [`Column::discard`] of a grouped member, whatever its group and type:
/// the arm that the declaration's `remove_component` shares between all its
/// grouped members (see [`relocate_grouped`]). `drop` drops a value of the
/// member's type (`None` when it needs no drop: clearing its bit is all).
///
/// # Safety
/// As [`relocate_grouped`]'s, and `drop`, if any, drops a value of the
/// member's type at the pointer it is given.
#[doc(hidden)]
// Inlined in an optimised build only: a debug build calls the copy in
// `ecs-core` rather than compile one in the declaring crate.
#[cfg_attr(not(debug_assertions), inline)]
pub unsafe fn discard_grouped(
    storages: *mut u8,
    offset: usize,
    member: (usize, usize, u8),
    drop: Option<unsafe fn(*mut u8)>,
    id: EntityId,
) {
    // SAFETY: as in `relocate_grouped`.
    let g = unsafe { &mut *(storages.add(offset) as *mut GroupCells) };
    let i = id.index();
    let (at, _, bit) = member;
    match g.masks.get_mut(i) {
        Some(m) if *m & bit != 0 => *m &= !bit,
        _ => return,
    }
    if let Some(drop) = drop {
        // SAFETY: the bit was set, so `i < masks.len() == slots.len()` (a
        // live slot) and the member at byte `at` of it is initialised (the
        // caller's contract); its bit is cleared first, so a panicking
        // `drop` leaves it dropped, never read again before being rewritten.
        unsafe { drop(g.slots.base().as_ptr().add(i * g.slots.item_size() + at)) };
    }
}

/// Drops the `T` at `value`: the drop of a grouped member that needs one,
/// given by pointer to [`discard_grouped`].
///
/// # Safety
/// `value` points to a `T` that is not used again.
unsafe fn drop_member<T>(value: *mut u8) {
    // SAFETY: forwarded from the caller.
    unsafe { value.cast::<T>().drop_in_place() }
}

/// What [`discard_grouped`] is given to drop a member of type `T`: `None`
/// when `T` needs no drop (no function compiled for it).
#[doc(hidden)]
pub const fn member_drop<T>() -> Option<unsafe fn(*mut u8)> {
    if core::mem::needs_drop::<T>() {
        Some(drop_member::<T>)
    } else {
        None
    }
}

/// The view of member `I` of a [`Grouped`] storage as a column.
///
/// ```
/// use ecs::storage::{Column, GroupColumn, Storage};
/// use ecs::{EntityId, EntityLimit};
///
/// // Member 1 (the `u8`) of a group of `(f32, u8)`.
/// let mut column = GroupColumn::<(f32, u8), 1>::new(EntityLimit::Fixed(4));
/// let id = EntityId::from_bits(2);
/// assert_eq!(column.insert(id, 7), None);
/// assert_eq!(column.get(id), Some(&7));
/// assert_eq!(column.remove(id), Some(7));
/// ```
#[repr(transparent)]
pub struct GroupColumn<G: Group, const I: usize>(Grouped<G>);

impl<G: Member<I>, const I: usize> GroupColumn<G, I>
where
    <G as Member<I>>::Item: ComponentBounds,
{
    /// The typed body of [`Column::insert_new`]: an optimised build's for
    /// every value, a debug build's for a value that needs a drop (one
    /// that needs none is copied by untyped code there). Inlined into the
    /// optimised build's `insert_new`, which stays that build's only body.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn insert_typed(&mut self, id: EntityId, value: <G as Member<I>>::Item) {
        let i = id.index();
        let (slot, was) = self.0.claim(i, 1 << I);
        // SAFETY: as in `insert`.
        let member = unsafe { G::project(slot) }.cast::<<G as Member<I>>::Item>();
        let g = &mut self.0;
        // A value that needs no drop is simply overwritten: for those (most
        // components) the branch is not compiled (it cost an optimised
        // spawn 10 instructions per member, callgrind).
        if const { core::mem::needs_drop::<<G as Member<I>>::Item>() } && was {
            // Not new after all (an unclaimed value, left by a spawn that
            // panicked): dropped in place, its bit cleared meanwhile (a
            // panicking `drop` leaves the member without a value), rather
            // than read out and dropped by typed code.
            g.masks[i] &= !(1 << I);
            // SAFETY: as in `insert`: the bit was set, so the member is
            // initialised; it is dropped once, its bit clear.
            unsafe { core::ptr::drop_in_place(member) };
            g.masks[i] |= 1 << I;
        }
        // SAFETY: as in `insert`: the member's field of a live cell, holding
        // no value (any was dropped above).
        unsafe { member.write(value) };
    }
}

impl<G: Member<I>, const I: usize> Storage for GroupColumn<G, I>
where
    <G as Member<I>>::Item: ComponentBounds,
{
    // Always inlined: see `Contiguous`'s.
    #[inline(always)]
    fn new(limit: EntityLimit) -> Self {
        // Member `I`, `Send + Sync`, is the only one this column ever
        // initialises: the `Grouped` inside is reached through it alone.
        GroupColumn(Grouped::new_unchecked(limit))
    }
}

// SAFETY: the member's mask bit tracks its initialisation; each id has its own
// tuple in the buffer, and members are disjoint fields reached through raw
// pointers only; the buffer moves only in `insert` (`&mut self`).
// Only member `I` is required to be `Send + Sync`: a member that is not fails
// in its own component's impl, and the others' columns still type-check.
unsafe impl<G: Member<I>, const I: usize> Column for GroupColumn<G, I>
where
    <G as Member<I>>::Item: ComponentBounds,
{
    type Item = <G as Member<I>>::Item;

    fn insert(&mut self, id: EntityId, value: Self::Item) -> Option<Self::Item> {
        let (slot, was) = self.0.claim(id.index(), 1 << I);
        // SAFETY: the slot is live (`claim` grew for it) and exclusively
        // borrowed; `project` creates no reference.
        let member = unsafe { G::project(slot) }.cast::<Self::Item>();
        if was {
            // SAFETY: the bit was set, so the member is initialised; the old
            // value is moved out and the new one in, nothing unwinding
            // between (read and write: `mem::replace` would be one more
            // function per member in a debug build).
            unsafe {
                let old = member.read();
                member.write(value);
                Some(old)
            }
        } else {
            // SAFETY: the member's field of a live cell (`MaybeUninit<Item>`
            // has `Item`'s layout), holding no value.
            unsafe { member.write(value) };
            None
        }
    }

    // `insert` without handing back a value, as `SparseSetStorage`'s.
    // Not `#[inline]`: as `insert`, left to the optimiser (with the hint,
    // inlined into every spawn, rustc's instructions for an optimised build
    // of `scripts/compile-cost`'s 64/32 rose by 3%).
    #[cfg(not(debug_assertions))]
    fn insert_new(&mut self, id: EntityId, value: Self::Item) {
        self.insert_typed(id, value);
    }

    // A debug build copies a value that needs no drop into its member's
    // field, the value moved (into a `ManuallyDrop`) before any call: no
    // drop flag, no unwinding path for it (the typed body was 56 lines of
    // IR per member, 560 at 64 components / 32 systems, `cargo
    // llvm-lines`); one that does goes through the typed body.
    #[cfg(debug_assertions)]
    fn insert_new(&mut self, id: EntityId, value: Self::Item) {
        if const { core::mem::needs_drop::<Self::Item>() } {
            self.insert_typed(id, value);
        } else {
            let value = core::mem::ManuallyDrop::new(value);
            let (slot, _) = self.0.claim(id.index(), 1 << I);
            // SAFETY: as in `insert`: the member's field of a live cell
            // (`claim` grew for it, and set its bit); any value it held
            // needs no drop (of the member's type), so overwriting it
            // leaks nothing; `value` is a member's value (`ManuallyDrop`
            // is `repr(transparent)`) on the stack, of the field's size.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    &raw const value as *const u8,
                    G::project(slot) as *mut u8,
                    const { size_of::<Self::Item>() },
                )
            };
        }
    }

    fn remove(&mut self, id: EntityId) -> Option<Self::Item> {
        let g = &mut self.0;
        if !g.has(id, I) {
            return None;
        }
        g.masks[id.index()] &= !(1 << I);
        // SAFETY: the bit was set, so `id < slots.len()` (the cell is live)
        // and the member is initialised; it was cleared first, so it is not
        // read again before being rewritten.
        Some(unsafe { G::project(g.slot(id.index())).cast::<Self::Item>().read() })
    }

    // Always inlined: see `Contiguous`'s. A member that needs no drop only
    // clears its bit (not generic).
    #[inline(always)]
    fn discard(&mut self, id: EntityId) {
        if const { core::mem::needs_drop::<Self::Item>() } {
            let _ = self.remove(id);
        } else {
            clear_bit(&mut self.0.masks, id.index(), 1 << I);
        }
    }

    #[inline]
    fn swap(&mut self, a: EntityId, b: EntityId) {
        // Relocating onto an id that holds a value exchanges the two values
        // in place (see `relocate`), which is a swap when both are claimed.
        self.relocate(a, b);
    }

    fn relocate(&mut self, from: EntityId, to: EntityId) {
        let g = &mut self.0;
        let (f, t) = (from.index(), to.index());
        if f == t || !g.has(from, I) {
            return;
        }
        if t >= g.slots.len() {
            g.grow_for(t);
        }
        // SAFETY: `f` (whose member is present) and `t` (grown above) are
        // below `slots.len()`, so both slots are live; `project` creates
        // no reference, and the two fields are distinct (`f != t`).
        let (pf, pt) = unsafe { (G::project(g.slot(f)), G::project(g.slot(t))) };
        let size = const { core::mem::size_of::<<G as Member<I>>::Item>() };
        // SAFETY: `pf` and `pt` are the member's fields in the cells of `f`
        // and `t` (distinct, live, each `size` bytes of a
        // `MaybeUninit<Item>`), `masks` are the group's bits, bit `I` set
        // exactly for the cells whose member is initialised, and `f`'s is.
        unsafe { move_member(pf.cast(), pt.cast(), size, &mut g.masks, 1 << I, f, t) };
    }

    #[inline]
    fn contains(&self, id: EntityId) -> bool {
        self.0.has(id, I)
    }

    #[inline]
    fn get(&self, id: EntityId) -> Option<&Self::Item> {
        // SAFETY: present, so initialised; callers of the column contract
        // never write a value while a shared reference to it exists.
        self.get_ptr(id).map(|p| unsafe { p.as_ref() })
    }

    #[inline]
    fn get_mut(&mut self, id: EntityId) -> Option<&mut Self::Item> {
        let p = self.get_ptr(id)?;
        // SAFETY: present, so initialised; `&mut self` excludes other access.
        Some(unsafe { &mut *p.as_ptr() })
    }

    #[inline]
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<Self::Item>> {
        if !self.0.has(id, I) {
            return None;
        }
        // SAFETY: `has` implies `id < slots.len()`: the slot is live.
        let member = unsafe { G::project(self.0.slot(id.index())) };
        NonNull::new(member.cast())
    }

    /// The buffer's first slot.
    type Fetch = NonNull<G::Slots>;

    #[inline]
    fn fetch_state(&self) -> Self::Fetch {
        // SAFETY: the same non-null pointer, as `G::Slots` (the slots'
        // layout): what `NonNull::cast` does, without its function per group
        // in a debug build.
        unsafe { core::mem::transmute::<NonNull<u8>, NonNull<G::Slots>>(self.0.slots.base()) }
    }

    // Always inlined in an optimised build only: see `walk_run` in `proxy/data.rs`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn fetch(base: Self::Fetch, id: EntityId) -> NonNull<Self::Item> {
        // SAFETY: the caller guarantees `base` is this buffer's, still live,
        // and that member `I` of `id` is present, so `id` is in bounds.
        let slot = unsafe { base.add(id.index()) };
        // SAFETY: the slot is live; `project` creates no reference.
        let member = unsafe { G::project(slot.as_ptr()) };
        // SAFETY: a field address inside a live allocation is never null.
        unsafe { NonNull::new_unchecked(member.cast()) }
    }

    #[inline]
    unsafe fn get_ptr_unchecked(&self, id: EntityId) -> NonNull<Self::Item> {
        debug_assert!(self.0.has(id, I));
        // SAFETY: the caller guarantees the member is present, so `id` is in
        // bounds by the mask invariant.
        let slot = unsafe { self.0.slot(id.index()) };
        // SAFETY: the slot is live; projecting creates no reference.
        let member = unsafe { G::project(slot) };
        // SAFETY: a field address inside a live allocation is never null.
        unsafe { NonNull::new_unchecked(member.cast()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn contract_of_each_member() {
        super::super::tests::exercise(GroupColumn::<(u64, u8), 0>::new(EntityLimit::Fixed(200)));
        super::super::tests::exercise(GroupColumn::<(u8, u64, u16), 1>::new(EntityLimit::Dynamic {
            initial: 0,
        }));
    }

    #[test]
    fn insert_new_over_a_panicking_value() {
        super::super::tests::insert_new_over_a_panicking_value(GroupColumn::<(u8, super::super::tests::Bomb), 1>::new(
            EntityLimit::Dynamic { initial: 0 },
        ));
    }

    #[test]
    fn insert_new_drops_a_replaced_value_once() {
        super::super::tests::insert_new_drops_replaced(GroupColumn::<(u8, Arc<()>), 1>::new(EntityLimit::Dynamic {
            initial: 0,
        }));
    }

    /// A standalone column of a thread-safe member of a group whose other
    /// member is not: it holds only its own member's values, so it may move
    /// to another thread and drop there (`Grouped`'s `Send` impl).
    #[test]
    fn column_of_a_thread_safe_member_moves_between_threads() {
        fn send_sync<T: Send + Sync>(_: &T) {}
        let mut column = GroupColumn::<(std::rc::Rc<u8>, Arc<u32>), 1>::new(EntityLimit::Dynamic { initial: 0 });
        let value = Arc::new(7);
        column.insert(EntityId(3), value.clone());
        column.insert(EntityId(40), value.clone());
        send_sync(&column);
        let got = std::thread::spawn(move || {
            let got = **column.get(EntityId(40)).unwrap();
            drop(column);
            got
        })
        .join()
        .unwrap();
        assert_eq!(got, 7);
        assert_eq!(Arc::strong_count(&value), 1);
    }

    #[test]
    fn members_are_independent_and_dropped() {
        let rc = Arc::new(());
        {
            let mut g = Grouped::<(Arc<()>, u32)>::new(EntityLimit::Dynamic { initial: 1 });
            g.column_mut::<0>().insert(EntityId(5), rc.clone());
            g.column_mut::<1>().insert(EntityId(5), 9);
            g.column_mut::<1>().insert(EntityId(6), 10);
            g.column_mut::<0>().insert(EntityId(7), rc.clone());
            assert!(!g.column::<0>().contains(EntityId(6)));
            assert_eq!(g.column::<1>().get(EntityId(5)), Some(&9));
            assert_eq!(g.column_mut::<1>().remove(EntityId(5)), Some(9));
            assert!(g.column::<0>().contains(EntityId(5)));
            assert_eq!(Arc::strong_count(&rc), 3);
        }
        assert_eq!(Arc::strong_count(&rc), 1);
    }
}
