//! [`Served`]: where a reply came from.

/// Where a reply came from: the model, now, or a record of an earlier
/// answer. It has one home: the [`Response`](crate::model::Response) of
/// the model that answered (a batch model names its batch; the journal and
/// the response cache, a layer around the model, say that they answered);
/// the loop records it in each attempt (`Attempt::served`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Served {
    /// The model answered this request now.
    #[default]
    Live,
    /// The job's journal had the reply: an earlier process of the same
    /// job asked and recorded it, and it was not asked again (feature
    /// `journal`, `Think::journal`). Its cost is
    /// the recorded one: paid once, by that process.
    Journal,
    /// The response cache had the reply to this exact request (feature
    /// `journal`, `Think::response_cache`);
    /// nothing was asked, and it cost nothing now.
    Cache,
    /// A provider's batch API answered it (feature `batch`,
    /// `batch::BatchModel`), as line `custom_id` of
    /// batch `batch_id`; priced with the model's batch discount.
    Batch {
        /// The provider's id of the batch.
        batch_id: String,
        /// The line's id within the batch.
        custom_id: String,
    },
}
