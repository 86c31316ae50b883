//! The bar chart of ratios to the best-effort hand-written version: a group per workload, a bar per
//! implementation, on a log scale so that 1.05× and 50× both read.

use crate::report::Results;
use crate::workload::Lib;
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::error::Error;
use std::path::{Path, PathBuf};

const WIDTH: u32 = 1500;
const HEIGHT: u32 = 760;

/// One colour per implementation (the best-effort version is the line at 1×).
fn color(lib: Lib) -> RGBColor {
    match lib {
        Lib::Best => BLACK,
        Lib::Baseline => RGBColor(188, 189, 34),
        Lib::Ecs => RGBColor(214, 39, 40),
        Lib::Bevy => RGBColor(31, 119, 180),
        Lib::Hecs => RGBColor(255, 127, 14),
        Lib::Legion => RGBColor(44, 160, 44),
        Lib::Specs => RGBColor(148, 103, 189),
        Lib::Shipyard => RGBColor(140, 86, 75),
        Lib::Gecs => RGBColor(127, 127, 127),
    }
}

/// Registers a TrueType font as "sans-serif"; false when none is found.
fn register_font() -> Result<bool, Box<dyn Error>> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("PEERS_BENCH_FONT")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    candidates.extend(
        [
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
        ]
        .map(PathBuf::from),
    );
    let Some(bytes) = candidates.iter().find_map(|p| std::fs::read(p).ok()) else {
        return Ok(false);
    };
    let font: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, font)
        .map_err(|_| "the font file is not a TrueType font")?;
    Ok(true)
}

/// Draws the chart to `path` (PNG); returns false when no font was found
/// and nothing was drawn.
pub fn draw(results: &Results, path: &Path) -> Result<bool, Box<dyn Error>> {
    if !register_font()? {
        eprintln!("no TrueType font found (set PEERS_BENCH_FONT): chart skipped");
        return Ok(false);
    }
    // The implementations measured (a run may leave some out); a cell one
    // of them lacks is a workload that crate cannot express.
    let libs: Vec<Lib> = Lib::ALL
        .into_iter()
        .filter(|&l| l != Lib::Best && results.workloads.iter().any(|&w| results.median(w, l).is_some()))
        .collect();
    let ratios: Vec<f64> = results
        .workloads
        .iter()
        .flat_map(|&w| libs.iter().filter_map(move |&l| results.ratio(w, l)))
        .collect();
    let lo = ratios.iter().copied().fold(1.0f64, f64::min) / 1.6;
    let hi = ratios.iter().copied().fold(1.0f64, f64::max) * 2.0;
    let groups = results.workloads.len() as f64;

    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "time per iteration relative to the best-effort hand-written version (log scale; lower is faster)",
            ("sans-serif", 24),
        )
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..groups, (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .disable_x_axis()
        .y_desc("ratio to best effort")
        .y_label_formatter(&|v| {
            if *v >= 1.0 {
                format!("{v:.0}×")
            } else {
                format!("{v:.1}×")
            }
        })
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .draw()?;

    let slot = 0.8 / libs.len() as f64;
    for (k, &lib) in libs.iter().enumerate() {
        let bars = results.workloads.iter().enumerate().filter_map(|(g, &w)| {
            let r = results.ratio(w, lib)?;
            let x0 = g as f64 + 0.1 + k as f64 * slot;
            Some(Rectangle::new([(x0, lo), (x0 + slot * 0.9, r)], color(lib).filled()))
        });
        chart
            .draw_series(bars)?
            .label(lib.name())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color(lib).filled()));
        let labels = results.workloads.iter().enumerate().map(|(g, &w)| {
            let x = g as f64 + 0.1 + (k as f64 + 0.45) * slot;
            let style = ("sans-serif", 11)
                .into_font()
                .color(&BLACK)
                .pos(plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Center,
                    plotters::style::text_anchor::VPos::Bottom,
                ));
            match results.ratio(w, lib) {
                Some(r) => Text::new(short_ratio(r), (x, r * 1.03), style),
                None => Text::new("n/a".to_string(), (x, lo * 1.1), style),
            }
        });
        chart.draw_series(labels)?;
    }
    chart
        .draw_series(LineSeries::new([(0.0, 1.0), (groups, 1.0)], BLACK.stroke_width(2)))?
        .label("best effort (1×)")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 14, y)], BLACK.stroke_width(2)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()?;

    // Workload names under each group.
    for (g, w) in results.workloads.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(g as f64 + 0.5, lo));
        let style = ("sans-serif", 17)
            .into_font()
            .color(&BLACK)
            .pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Top,
            ));
        root.draw(&Text::new(w.name(), (x, y + 10), style))?;
    }
    root.present()?;
    Ok(true)
}

/// A bar's label: the ratio with few digits.
fn short_ratio(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.2}")
    } else if r < 100.0 {
        format!("{r:.1}")
    } else {
        format!("{r:.0}")
    }
}
