//! How a PostgreSQL journal speaks TLS: what its connection string asks
//! for (libpq's `sslmode` and `sslrootcert`, which the driver reads only in
//! part) and the rustls configuration that does it.
//!
//! The driver (tokio-postgres) knows `sslmode=disable|prefer|require` and
//! refuses `verify-ca`, `verify-full` and `sslrootcert` as unknown options,
//! while every PostgreSQL user writes them as libpq documents them. So they
//! are read here, taken out of the string the driver parses (`verify-*`
//! becomes `require`: TLS or no connection), and turned into the check the
//! TLS configuration makes.

use std::borrow::Cow;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};

use crate::journal::error::JournalError;

/// How the server's certificate is checked.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Check {
    /// Encrypt, and take whatever certificate the server shows (libpq's
    /// `require` and `prefer` without a root certificate).
    None,
    /// Check that `roots` vouch for the certificate; with `host`, that it
    /// names the host connected to too (`verify-full`; `verify-ca`
    /// without).
    Chain {
        /// The certificate authorities trusted.
        roots: Roots,
        /// Whether the host's name is checked too.
        host: bool,
    },
}

/// The certificate authorities a [`Check::Chain`] trusts.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Roots {
    /// The platform's (`sslrootcert=system`, or none named).
    Platform,
    /// Those of a PEM file (`sslrootcert=/path/to/root.crt`).
    File(PathBuf),
}

impl Check {
    /// What a refused certificate was checked against, for the error.
    pub(super) fn describe(&self) -> String {
        let (roots, host) = match self {
            Check::None => return "nothing".into(),
            Check::Chain { roots, host } => (roots, *host),
        };
        let against = match roots {
            Roots::Platform => "the platform's certificate authorities".to_string(),
            Roots::File(path) => format!("the certificate authorities in {}", path.display()),
        };
        if host {
            format!("sslmode=verify-full: against {against} and the host name")
        } else {
            format!("sslmode=verify-ca: against {against}")
        }
    }
}

/// One `key=value` of a connection string: the range of the whole pair
/// with one separator beside it (so cutting it leaves a well-formed
/// string), and its value. Only a key of its own counts: at the start,
/// after `?` or `&` (a URL) or after white space (key=value pairs), not
/// the same letters inside another option's value.
fn find(url: &str, key: &str) -> Option<(Range<usize>, Range<usize>)> {
    let bytes = url.as_bytes();
    let pattern = format!("{key}=");
    let mut from = 0;
    while let Some(found) = url[from..].find(&pattern) {
        let at = from + found;
        let value_at = at + pattern.len();
        let value_end = url[value_at..]
            .find(|c: char| c == '&' || c.is_ascii_whitespace())
            .map_or(url.len(), |end| value_at + end);
        let starts_key = at == 0 || matches!(bytes[at - 1], b'?' | b'&' | b' ' | b'\t' | b'\n');
        if starts_key {
            // With the separator after it, else the one before it (a `?`
            // only when nothing follows).
            let pair = if value_end < url.len() {
                at..value_end + 1
            } else if at > 0 {
                at - 1..value_end
            } else {
                at..value_end
            };
            return Some((pair, value_at..value_end));
        }
        from = value_end.max(value_at);
    }
    None
}

/// `%XX` escapes of a URL's value decoded (a path in a URL's query may be
/// written escaped); anything else as written.
fn unescape(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((high * 16 + low) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The connection string the driver is given, and the check its TLS
/// makes, from libpq's options in `url`:
///
/// - `sslmode=verify-full`: the certificate checked against the root
///   certificates and the host's name; `verify-ca`: against the roots only.
///   Both are given to the driver as `require`.
/// - `sslrootcert=/path/to/root.crt` (taken out of the string): the roots
///   are the PEM file's; `sslrootcert=system`, or none named: the
///   platform's. A root certificate named with `require` or `prefer` asks
///   for the server to be checked: as `verify-ca`, as libpq does for
///   `require`.
/// - `sslmode=disable`: no TLS, nothing checked.
pub(super) fn read(url: &str) -> (Cow<'_, str>, Check) {
    let mut url = Cow::Borrowed(url);
    let mut roots = None;
    if let Some((pair, value)) = find(&url, "sslrootcert") {
        let value = unescape(&url[value]);
        roots = Some(if value == "system" {
            Roots::Platform
        } else {
            Roots::File(PathBuf::from(value))
        });
        let mut cut = url.into_owned();
        cut.replace_range(pair, "");
        url = Cow::Owned(cut);
    }
    let mode = find(&url, "sslmode").map(|(_, value)| value);
    let (host, verify) = match mode.as_ref().map(|value| &url[value.clone()]) {
        Some("verify-full") => (true, true),
        Some("verify-ca") => (false, true),
        Some("disable") => return (url, Check::None),
        _ => (false, false),
    };
    if verify {
        let value = mode.expect("a mode was read");
        let mut rewritten = url.into_owned();
        rewritten.replace_range(value, "require");
        url = Cow::Owned(rewritten);
    }
    let check = match (verify, roots) {
        (true, roots) => Check::Chain {
            roots: roots.unwrap_or(Roots::Platform),
            host,
        },
        (false, Some(roots)) => Check::Chain { roots, host: false },
        (false, None) => Check::None,
    };
    (url, check)
}

/// The TLS a connection uses when it speaks TLS: rustls over aws-lc-rs,
/// checking the server's certificate as `check` says. Without a check
/// the connection is still encrypted and the handshake's signatures
/// checked, the certificate taken as shown.
pub(super) fn config(
    check: &Check,
) -> Result<tokio_postgres_rustls::MakeRustlsConnect, JournalError> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let not_set_up = |e: rustls::Error| JournalError::Address {
        detail: format!("TLS could not be set up: {e}"),
    };
    let builder = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(not_set_up)?;
    let verifier: Arc<dyn ServerCertVerifier> = match check {
        Check::None => Arc::new(Unchecked(Arc::clone(&provider))),
        Check::Chain { roots, host } => {
            let chain: Arc<dyn ServerCertVerifier> = match roots {
                Roots::Platform => Arc::new(
                    rustls_platform_verifier::Verifier::new(Arc::clone(&provider))
                        .map_err(not_set_up)?,
                ),
                Roots::File(path) => {
                    let mut store = rustls::RootCertStore::empty();
                    for certificate in read_roots(path)? {
                        store.add(certificate).map_err(|e| JournalError::Address {
                            detail: format!(
                                "sslrootcert={}: a certificate in it is not a root \
                                 certificate authority ({e})",
                                path.display()
                            ),
                        })?;
                    }
                    rustls::client::WebPkiServerVerifier::builder_with_provider(
                        Arc::new(store),
                        Arc::clone(&provider),
                    )
                    .build()
                    .map_err(|e| JournalError::Address {
                        detail: format!("TLS could not be set up: {e}"),
                    })?
                }
            };
            if *host {
                chain
            } else {
                Arc::new(ChainOnly(chain))
            }
        }
    };
    let config = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// The certificates of the PEM file `path`, at least one.
fn read_roots(path: &std::path::Path) -> Result<Vec<CertificateDer<'static>>, JournalError> {
    let unreadable = |e: &dyn std::fmt::Display| JournalError::Address {
        detail: format!("sslrootcert={}: {e}", path.display()),
    };
    let certificates = CertificateDer::pem_file_iter(path)
        .map_err(|e| unreadable(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| unreadable(&e))?;
    if certificates.is_empty() {
        return Err(JournalError::Address {
            detail: format!(
                "sslrootcert={}: the file holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                path.display()
            ),
        });
    }
    Ok(certificates)
}

/// Whether the driver's `error` is the server's certificate refused by
/// the check.
pub(super) fn untrusted(error: &tokio_postgres::Error) -> bool {
    let Some(io) =
        std::error::Error::source(error).and_then(|source| source.downcast_ref::<std::io::Error>())
    else {
        return false;
    };
    matches!(
        io.get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>()),
        Some(rustls::Error::InvalidCertificate(_))
    )
}

/// The check of `verify-ca`: the chain as the wrapped verifier checks it,
/// whatever host the certificate names.
#[derive(Debug)]
struct ChainOnly(Arc<dyn ServerCertVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// The certificate check of `sslmode=require` without a root certificate:
/// none (as libpq), but the handshake's signatures are checked with the
/// provider's algorithms, so the connection is encrypted to the holder of
/// the certificate's key.
#[derive(Debug)]
struct Unchecked(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(roots: Roots, host: bool) -> Check {
        Check::Chain { roots, host }
    }

    #[test]
    fn libpq_options_become_what_the_driver_reads_and_the_check() {
        let file = |p: &str| Roots::File(PathBuf::from(p));
        let cases = [
            (
                "postgres://twr@db/jobs?sslmode=verify-full",
                "postgres://twr@db/jobs?sslmode=require",
                chain(Roots::Platform, true),
            ),
            (
                "postgres://db/jobs?connect_timeout=5&sslmode=verify-ca&application_name=w",
                "postgres://db/jobs?connect_timeout=5&sslmode=require&application_name=w",
                chain(Roots::Platform, false),
            ),
            (
                "host=db sslmode=verify-full dbname=jobs",
                "host=db sslmode=require dbname=jobs",
                chain(Roots::Platform, true),
            ),
            (
                "postgres://db/jobs?sslmode=require",
                "postgres://db/jobs?sslmode=require",
                Check::None,
            ),
            ("postgres://db/jobs", "postgres://db/jobs", Check::None),
            // Not the key: part of another option's value.
            (
                "postgres://db/jobs?options=xsslmode=verify-full",
                "postgres://db/jobs?options=xsslmode=verify-full",
                Check::None,
            ),
            // A root certificate: taken out, wherever it stands.
            (
                "postgres://db/jobs?sslrootcert=/etc/ca.crt&sslmode=verify-full",
                "postgres://db/jobs?sslmode=require",
                chain(file("/etc/ca.crt"), true),
            ),
            (
                "postgres://db/jobs?sslmode=verify-ca&sslrootcert=%2Fetc%2Fmy%20ca.crt",
                "postgres://db/jobs?sslmode=require",
                chain(file("/etc/my ca.crt"), false),
            ),
            (
                "postgres://db/jobs?sslrootcert=/etc/ca.crt",
                "postgres://db/jobs",
                chain(file("/etc/ca.crt"), false),
            ),
            (
                "postgres://db/jobs?sslmode=require&sslrootcert=system&connect_timeout=5",
                "postgres://db/jobs?sslmode=require&connect_timeout=5",
                chain(Roots::Platform, false),
            ),
            (
                "host=db sslrootcert=/etc/ca.crt sslmode=verify-full",
                "host=db sslmode=require",
                chain(file("/etc/ca.crt"), true),
            ),
            (
                "postgres://db/jobs?sslmode=disable&sslrootcert=/etc/ca.crt",
                "postgres://db/jobs?sslmode=disable",
                Check::None,
            ),
        ];
        for (url, want, check) in cases {
            let (got, got_check) = read(url);
            assert_eq!((&*got, got_check), (want, check), "{url}");
        }
    }

    #[test]
    fn a_root_file_that_is_missing_or_holds_no_certificate_is_a_clear_error() {
        let dir = std::env::temp_dir().join(format!("twr-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("missing.crt");
        let check = chain(Roots::File(missing.clone()), true);
        let Err(JournalError::Address { detail }) = config(&check) else {
            panic!("a missing root file was taken");
        };
        assert!(
            detail.starts_with(&format!("sslrootcert={}: ", missing.display())),
            "{detail}"
        );
        let empty = dir.join("empty.crt");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let Err(JournalError::Address { detail }) =
            config(&chain(Roots::File(empty.clone()), false))
        else {
            panic!("a file of no certificate was taken");
        };
        assert_eq!(
            detail,
            format!(
                "sslrootcert={}: the file holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                empty.display()
            )
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
