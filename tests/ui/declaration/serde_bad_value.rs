ecs::declare_context! {
    pub context World {
        settings { serde: yes }
    }
}

fn main() {}
