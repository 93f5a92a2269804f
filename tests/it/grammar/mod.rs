//! `twr_runtime::grammar`: the sections as GBNF, Lark and JSON schema,
//! checked against the parser and against the engines themselves.

mod corpus;
mod engines;
mod json;
mod props;
