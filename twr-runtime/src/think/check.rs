//! The loop's asynchronous check ([`Think::check`]): a rule that needs the
//! world (run the SQL, fetch the URL, look the id up) on a value that
//! parsed. Its failure is feedback, costs an attempt and has its own kind
//! in the ledger ([`AttemptKind::CheckFailed`](super::AttemptKind::CheckFailed)).

use std::fmt::Display;
use std::future::Future;
use std::marker::PhantomData;

use super::{Outcome, Think, ThinkError};
use crate::model::{BoxFuture, ChatModel, Message};
use crate::sections::Sections;

/// The check as the loop calls it: the future it returns borrows only the
/// check (never the value), and its error is already the text sent to the
/// model.
pub(crate) trait AsyncCheck<T>: Send + Sync {
    fn check(&self, value: &T) -> BoxFuture<'_, Result<(), String>>;
}

/// A user's check function, `'c` the lifetime of what it and its futures
/// borrow.
struct CheckWith<'c, F> {
    check: F,
    borrows: PhantomData<&'c ()>,
}

impl<'c, T, F, Fut, E> AsyncCheck<T> for CheckWith<'c, F>
where
    F: Fn(&T) -> Fut + Send + Sync,
    Fut: Future<Output = Result<(), E>> + Send + 'c,
    E: Display,
{
    fn check(&self, value: &T) -> BoxFuture<'_, Result<(), String>> {
        let checking = (self.check)(value);
        Box::pin(async move { checking.await.map_err(|error| error.to_string()) })
    }
}

/// A [`Think`] with an asynchronous check of the values it reads, made by
/// [`Think::check`]. A run reads each reply as [`Think::run`] does; a value
/// that parsed is then checked, and when the check fails its error's text is
/// sent to the model as written, asking for the whole answer again.
///
/// ```
/// use twr_runtime::AttemptKind;
/// use twr_runtime::{ScriptedModel, Sections, Think};
///
/// #[derive(Debug, Sections)]
/// struct Lookup {
///     order_id: u32,
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let model = ScriptedModel::new(["[Order Id]\n17", "[Order Id]\n42"]);
/// let known = [42, 43];
/// let outcome = Think::new(&model)
///     .check(|lookup: &Lookup| {
///         let id = lookup.order_id;
///         // A database or an HTTP call would go here.
///         async move {
///             if known.contains(&id) { Ok(()) } else { Err(format!("There is no order {id}.")) }
///         }
///     })
///     .run("Which order is it?")
///     .await?;
/// assert_eq!(outcome.value.order_id, 42);
/// assert_eq!(outcome.attempts[0].kind, AttemptKind::CheckFailed);
/// # Ok::<(), twr_runtime::ThinkError>(())
/// # }).unwrap();
/// ```
pub struct Checked<'t, 'a, 'c, M, T> {
    think: &'t Think<'a, M>,
    check: Box<dyn AsyncCheck<T> + 'c>,
}

impl<'a, M> Think<'a, M> {
    /// Adds an asynchronous check to the values of type `T` this `Think`
    /// reads: `check` gets each value that parsed and returns a future of
    /// `Result<(), E>` with `E: Display`. An `Err` is feedback: its text goes
    /// to the model as written, the attempt is recorded as
    /// [`AttemptKind::CheckFailed`](super::AttemptKind::CheckFailed) and
    /// counts toward [`max_attempts`](Think::max_attempts). The future
    /// cannot borrow the value: copy out what it needs.
    pub fn check<'t, 'c, T, F, Fut, E>(&'t self, check: F) -> Checked<'t, 'a, 'c, M, T>
    where
        T: Sections,
        F: Fn(&T) -> Fut + Send + Sync + 'c,
        Fut: Future<Output = Result<(), E>> + Send + 'c,
        E: Display,
    {
        Checked {
            think: self,
            check: Box::new(CheckWith {
                check,
                borrows: PhantomData,
            }),
        }
    }
}

impl<M: ChatModel, T: Sections> Checked<'_, '_, '_, M, T> {
    /// Asks for a `T` as [`Think::run`] does, and checks each value that
    /// parsed before it is accepted.
    pub async fn run(&self, prompt: impl Into<Message>) -> Result<Outcome<T>, ThinkError> {
        let check: &dyn AsyncCheck<T> = &*self.check;
        self.think
            .run_checked::<T>(prompt.into(), Some(check))
            .await
    }
}

impl<M, T> std::fmt::Debug for Checked<'_, '_, '_, M, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checked").finish_non_exhaustive()
    }
}
