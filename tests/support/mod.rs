//! Shared test support for the graph compiler tests: the reference evaluator and the random
//! graph generator.

pub mod graphgen;
pub mod modelgen;
pub mod reference;
