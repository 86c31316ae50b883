//! What the report says of where and with what it ran.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// The machine, the compiler, the crate versions and the date of a run.
pub struct Machine {
    pub cores: usize,
    pub cpu: String,
    pub rustc: &'static str,
    /// `(crate, version)` as Cargo.lock resolved them.
    pub versions: Vec<(&'static str, &'static str)>,
    /// The commit of the repository `ecs` was built from, and whether its
    /// sources had uncommitted changes.
    pub ecs_revision: String,
    pub date: String,
}

impl Machine {
    pub fn detect() -> Self {
        Machine {
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cpu: cpu_model().unwrap_or_else(|| "unknown".into()),
            rustc: env!("PEERS_RUSTC"),
            versions: env!("PEERS_VERSIONS")
                .split(';')
                .filter_map(|kv| kv.split_once('='))
                .collect(),
            ecs_revision: ecs_revision().unwrap_or_else(|| "unknown".into()),
            date: utc_now(),
        }
    }

    /// The locked version of `krate`.
    pub fn version(&self, krate: &str) -> &str {
        self.versions.iter().find(|(k, _)| *k == krate).map_or("?", |(_, v)| v)
    }
}

/// The model name, family and model numbers, and the L2 cache of one core:
/// the name alone ("Intel(R) Xeon(R) Processor") tells little of a
/// virtual machine's CPU.
fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let field = |key: &str| {
        let line = info
            .lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))?;
        Some(line.split_once(':')?.1.trim().to_string())
    };
    let mut cpu = field("model name")?;
    if let (Some(family), Some(model)) = (field("cpu family"), field("model")) {
        cpu += &format!(", family {family} model {model}");
    }
    if let Ok(l2) = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index2/size") {
        cpu += &format!(", L2 {} per core", l2.trim());
    }
    Some(cpu)
}

fn ecs_revision() -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let git = |args: &[&str]| {
        let out = Command::new("git").arg("-C").arg(&root).args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let rev = git(&["rev-parse", "--short", "HEAD"])?;
    let dirty = git(&[
        "status",
        "--porcelain",
        "--",
        "ecs-core",
        "ecs-macros",
        "src",
        "Cargo.toml",
    ])?;
    Some(if dirty.is_empty() {
        rev
    } else {
        format!("{rev} with uncommitted changes")
    })
}

/// The current UTC date and time, `YYYY-MM-DD HH:MM UTC`.
fn utc_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", rest / 3600, rest % 3600 / 60)
}

/// Year, month, day of a count of days since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}
