//! The timeline in the Chrome trace event format (the JSON object form), which
//! Perfetto (ui.perfetto.dev, `trace_processor`) and chrome://tracing open: one
//! process, one thread per lane named after it, one complete event (`"ph": "X"`)
//! per span, nested within its launch's. Timestamps are cycles, shown as
//! microseconds.

use serde_json::{Value, json};

use crate::Simulation;

/// The trace of `sim`.
pub fn trace_json(sim: &Simulation) -> String {
    let mut events: Vec<Value> = vec![json!({
        "name": "process_name", "ph": "M", "pid": 1, "tid": 0,
        "args": {"name": "acc-sim"}
    })];
    for (tid, lane) in sim.lanes.iter().enumerate() {
        events.push(json!({
            "name": "thread_name", "ph": "M", "pid": 1, "tid": tid,
            "args": {"name": lane}
        }));
        events.push(json!({
            "name": "thread_sort_index", "ph": "M", "pid": 1, "tid": tid,
            "args": {"sort_index": tid}
        }));
    }
    for (i, s) in sim.spans.iter().enumerate() {
        let category = if s.lane == 0 {
            "host"
        } else if sim.lanes[s.lane].starts_with("dma ") {
            "dma"
        } else {
            "device"
        };
        events.push(json!({
            "name": s.name, "cat": category, "ph": "X", "pid": 1, "tid": s.lane,
            "ts": s.start, "dur": s.end - s.start,
            "args": {"span": i, "waited_for": s.pred, "cycles": s.end - s.start}
        }));
    }
    let trace = json!({
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {"unit": "1 cycle = 1 us", "makespan": sim.elapsed}
    });
    trace.to_string()
}
