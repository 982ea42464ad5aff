//! Undo and redo: the modules of a session, oldest first, and which one is current.
//!
//! Every step holds a whole [`Ir`] (cheap to clone: it holds only small IDs into the
//! session's context). Invariants: `current < steps.len()` whenever `steps` is not
//! empty; the steps after `current` are the ones `redo` brings back, and recording a new
//! step drops them. At most [`LIMIT`] steps are kept; the oldest go first.

use acc_ir::Ir;

/// The most steps kept.
pub const LIMIT: usize = 100;

/// How a step came about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// A file was loaded or IR was pasted.
    Load,
    /// A pass or pipeline changed the module before it.
    Transform,
}

/// One module of the session's history.
#[derive(Clone)]
pub struct Step {
    /// The module.
    pub ir: Ir,
    /// What made it: a file name, or the pipeline that ran.
    pub label: String,
    /// How it came about.
    pub kind: StepKind,
}

/// The session's modules and the current one.
#[derive(Default)]
pub struct Timeline {
    steps: Vec<Step>,
    current: usize,
}

impl Timeline {
    /// The current step, if any module was loaded.
    pub fn current(&self) -> Option<&Step> {
        self.steps.get(self.current)
    }

    /// The step before the current one, if it is still kept.
    pub fn previous(&self) -> Option<&Step> {
        self.current.checked_sub(1).and_then(|i| self.steps.get(i))
    }

    /// Makes `step` current, dropping the steps that could have been redone.
    pub fn record(&mut self, step: Step) {
        if !self.steps.is_empty() {
            self.steps.truncate(self.current + 1);
        }
        self.steps.push(step);
        if self.steps.len() > LIMIT {
            self.steps.remove(0);
        }
        self.current = self.steps.len() - 1;
    }

    /// Goes back one step; returns the step undone.
    pub fn undo(&mut self) -> Option<&Step> {
        if self.current == 0 {
            return None;
        }
        self.current -= 1;
        self.steps.get(self.current + 1)
    }

    /// Goes forward one step; returns the step redone.
    pub fn redo(&mut self) -> Option<&Step> {
        if self.current + 1 >= self.steps.len() {
            return None;
        }
        self.current += 1;
        self.steps.get(self.current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_module() -> Ir {
        let mut ctx = acc_dialects::new_context();
        let mut sources = acc_ir::SourceMap::new();
        let file = sources.add("t", "module {}".to_string());
        acc_ir::parser::parse_file(&mut ctx, &sources, file).expect("parses")
    }

    fn step(ir: &Ir, label: &str) -> Step {
        Step {
            ir: ir.clone(),
            label: label.to_string(),
            kind: StepKind::Load,
        }
    }

    fn label(t: &Timeline) -> Option<&str> {
        t.current().map(|s| s.label.as_str())
    }

    #[test]
    fn undo_and_redo_move_along_the_steps() {
        let ir = empty_module();
        let mut t = Timeline::default();
        assert!(t.current().is_none() && t.undo().is_none() && t.redo().is_none());
        t.record(step(&ir, "a"));
        t.record(step(&ir, "b"));
        assert_eq!(t.previous().map(|s| s.label.as_str()), Some("a"));
        assert_eq!(t.undo().map(|s| s.label.clone()), Some("b".into()));
        assert_eq!(label(&t), Some("a"));
        assert!(t.undo().is_none());
        assert_eq!(t.redo().map(|s| s.label.clone()), Some("b".into()));
        assert!(t.redo().is_none());
        // A new step after an undo drops what could have been redone.
        t.undo();
        t.record(step(&ir, "c"));
        assert_eq!(label(&t), Some("c"));
        assert!(t.redo().is_none());
    }

    #[test]
    fn keeps_at_most_the_limit() {
        let ir = empty_module();
        let mut t = Timeline::default();
        for i in 0..LIMIT + 5 {
            t.record(step(&ir, &i.to_string()));
        }
        let mut undone = 0;
        while t.undo().is_some() {
            undone += 1;
        }
        assert_eq!(undone, LIMIT - 1);
        assert_eq!(label(&t), Some("5"));
    }
}
