// Systems read components because an entity's set says it holds them: a set
// whose `contains_all` said yes to everything would make them read values
// never written. Only the crate's own sets implement `ComponentSet`.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Yes;

impl ecs::traits::ComponentSet for Yes {
    fn insert(&mut self, _: usize) {}
    fn remove(&mut self, _: usize) {}
    fn contains(&self, _: usize) -> bool { true }
    fn contains_all(&self, _: &Self) -> bool { true }
    fn intersects(&self, _: &Self) -> bool { true }
    fn masked_eq(&self, _: &Self, _: &Self) -> bool { true }
    fn is_empty(&self) -> bool { false }
    fn union_with(&mut self, _: &Self) {}
    fn intersection(&self, _: &Self) -> Self { Yes }
    fn order(&self, _: &Self) -> core::cmp::Ordering { core::cmp::Ordering::Equal }
    fn for_each(&self, _: impl FnMut(usize)) {}
    fn clear(&mut self) {}
}

fn main() {}
