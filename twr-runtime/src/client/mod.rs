//! HTTP clients for real model servers.
