//! One run of the loop, step by step: ask, record, read, and either finish
//! or send the problems back and ask again.

use super::attempt::{self, Constraining, Sent};
use super::bounded_reply::bounded_reply;
use super::budget::Budget;
use super::check::AsyncCheck;
use super::confidence;
use super::conversation::Conversation;
use super::demo;
use super::error::{ThinkError, ThinkErrorKind};
use super::learn::{Learned, Lessons};
use super::messages;
use super::outcome::{Attempt, AttemptKind, Ending, FailedCall, Outcome, SectionSource};
use super::read::{AnswerSpec, Parsed, Reader, Verdict};
use super::samples;
use super::stream::{Listener, MakeWatch, Note, NoteSinks};
use super::trace;
use super::transport::{self, Call, CallFailure, Stop};
use super::{RetryMode, Think, DEFAULT_MAX_DURATION};
use crate::feedback::{Feedback, Problem, ProblemKind, Wording};
use crate::grammar::{self, Grammar};
use crate::json::JsonProvenance;
use crate::model::{ChatModel, FinishReason, Message, ModelError, Usage};
use crate::model::{Request, Served, TokenLogprob};
use crate::parse::typed::TypedSections;
use crate::parse::SectionMap;
use crate::text::SharedText;
use tracing::{Instrument as _, Span};

/// The state of one run of [`Think`].
///
/// One idea, one name: [`Think::run`] starts a run, this is its state, and
/// the public [`run`](crate::run) module holds the details of its record
/// (the ledger's parts, its budgets and defaults).
pub(super) struct Run<'r, 'a, M, U, F> {
    think: &'r Think<'a, M>,
    max_attempts: usize,
    /// The prompt as the caller wrote it (its attachments included), for
    /// [`Outcome::final_exchange`].
    prompt: Message,
    conversation: Conversation,
    reader: Reader<F>,
    budget: Budget,
    /// The ledger so far.
    attempts: Vec<Attempt>,
    /// Reads streamed replies section by section (`None`: replies are read
    /// whole, with `chat`).
    listener: Option<Listener<'r>>,
    notes: NoteSinks<'r>,
    /// The check of [`Think::check`], run on each value that parsed.
    check: Option<&'r dyn AsyncCheck<U>>,
    /// The grammar the current attempt was sent with, when it was
    /// constrained, and whether its reply is JSON in the grammar's schema.
    constraint: Option<(Grammar, bool)>,
    /// Which attempts are sent with a grammar.
    constraining: Constraining,
    /// The demonstrations learned from earlier runs, for the ledger.
    learned: Vec<Learned>,
    /// The shape of the run's type, when the value it ends with is
    /// recorded in the job (never without the journal).
    record_as: Option<String>,
    /// The feedback sent after the last attempt, until the next reply is
    /// judged: its wording, and the one section a focused question asked
    /// about.
    sent: Option<(Wording, Option<&'static str>)>,
    /// The log-probabilities of the current attempt's reply, until it is
    /// read ([`Think::confidence`]).
    logprobs: Vec<TokenLogprob>,
    /// The answer the replies to an attempt asked several times agree on
    /// ([`Think::samples`]), until the attempt is read and ended: what the
    /// reader reads, and what the model is shown again with feedback.
    agreed: Option<SharedText>,
}

/// What the reader made of a reply that gave a value.
struct Accepted<U> {
    value: U,
    kind: AttemptKind,
    /// The text the value was parsed from, when it is not the reply itself
    /// (a merge).
    answer: Option<String>,
    /// The sections read from a reply in a grammar's JSON schema, when the
    /// value was read from them.
    from_json: Option<SharedText>,
    json: Vec<JsonProvenance>,
}

impl<'r, 'a, M, U, F> Run<'r, 'a, M, U, F>
where
    M: ChatModel,
    F: for<'p> Fn(&'p str, Option<SectionMap<'p>>, &mut TypedSections) -> Parsed<U>,
{
    /// A run of `think` for `prompt`: the first request is the prompt with
    /// the format guide, after the caller's system message, the
    /// demonstrations and the history (see [`demo::opening`]).
    /// With `watch`, replies are streamed and read section by section, and
    /// what happens goes to `notes`.
    pub(super) fn new(
        think: &'r Think<'a, M>,
        prompt: Message,
        format: AnswerSpec<F>,
        watch: Option<MakeWatch>,
        notes: NoteSinks<'r>,
        check: Option<&'r dyn AsyncCheck<U>>,
        lessons: Lessons,
    ) -> Self {
        let max_attempts = think.attempts_allowed();
        let early_abort = think.early_abort.unwrap_or(true) && think.model.streams();
        let listener = watch.map(|make| Listener::new(make(), early_abort, notes));
        let lang = format.lang.unwrap_or_default();
        let mut demonstrations = think.demonstrations.clone();
        // What every request of this Think repeats, whatever the prompt:
        // the demonstrations written for it and, when none is learned for
        // this prompt, the one built from the examples and the history
        // too. Learned ones change with the prompt, and come after.
        let shared_demonstrations = if lessons.demonstrations.is_empty() {
            None
        } else {
            Some(think.demonstrations.len())
        };
        demonstrations.extend(lessons.demonstrations);
        if let (true, Some(specs)) = (think.auto_demonstration, format.specs) {
            demonstrations.push(demo::from_examples(specs, format.ways, lang));
        }
        let opening = demo::opening(
            &prompt.content,
            format.guide.as_deref(),
            &demonstrations,
            format.specs,
            format.ways,
            lang,
        );
        // The guide goes into the text; the attachments stay.
        let asked = Message {
            role: prompt.role,
            content: prompt.content.clone().with_text(opening.prompt),
        };
        Run {
            think,
            max_attempts,
            prompt,
            conversation: Conversation::new(
                think.system.as_deref(),
                &opening.demonstrations,
                &think.history,
                asked,
            )
            .sharing(shared_demonstrations),
            reader: Reader::new(
                format,
                think.mode == RetryMode::Patch,
                think.focused_questions,
                think.wording,
            ),
            budget: Budget::new(
                think.max_total_tokens,
                think.max_requests,
                Some(think.max_duration.unwrap_or(DEFAULT_MAX_DURATION)),
            ),
            attempts: Vec::new(),
            listener,
            notes,
            check,
            constraint: None,
            constraining: Constraining::new(think.constrain_after, max_attempts),
            learned: lessons.learned,
            record_as: lessons.record_as,
            sent: None,
            logprobs: Vec::new(),
            agreed: None,
        }
    }

    /// The number of format attempts the run may make.
    pub(super) fn max_attempts(&self) -> usize {
        self.max_attempts
    }

    /// The loop's story: ask; on a repeat, constrain the next attempt when
    /// the model can be held to a grammar, else stop; keep a value;
    /// otherwise send the problems back and ask again, until the attempts
    /// or a budget run out.
    pub(super) async fn go(mut self) -> Result<Outcome<U>, ThinkError> {
        // An attachment that cannot be sent fails before any request.
        if let Err(error) = self.conversation.check_attachments() {
            tracing::warn!(error = %error, "twr attachment cannot be sent");
            let source = ModelError::Attachment(error);
            return Err(self.fail(ThinkErrorKind::Model { source, retries: 0 }));
        }
        for number in 1..=self.max_attempts {
            // The attempt's span holds its call, its judgement and its
            // ledger entry (see think/trace.rs).
            let span = self.attempt_span(number);
            let asked = match self.samples_for(number) {
                Some(k) => self.ask_samples(number, k).instrument(span.clone()).await?,
                None => self.ask(number).instrument(span.clone()).await?,
            };
            let (mut attempt, aborted) = asked;
            let repeated = self.repeats_previous(&attempt);
            if repeated {
                // A model that can be held to a grammar gets the next
                // attempt constrained instead: the run ends on a repeat
                // only when nothing else is left to try.
                let next = number + 1;
                let can_constrain = self.think.constrain_after.is_some()
                    || self.model_for(next).takes_grammar().is_some();
                if next > self.max_attempts || !can_constrain || self.constrains(number) {
                    return Err(span.in_scope(|| self.stop_on_repeat(attempt)));
                }
                self.constraining.after_repeat(next);
            }
            let next_constrained = number < self.max_attempts && self.constrains(number + 1);
            self.reader.set_next_constrained(next_constrained);
            let read = span.in_scope(|| self.read(&mut attempt, aborted));
            let message = match read {
                Ok(accepted) => {
                    // The future borrows the check only, not the value.
                    let checking = self.check.map(|check| check.check(&accepted.value));
                    let verdict = match checking {
                        Some(checking) => checking.instrument(span.clone()).await,
                        None => Ok(()),
                    };
                    match verdict {
                        Ok(()) => return Ok(span.in_scope(|| self.finish(attempt, accepted))),
                        Err(refusal) => {
                            span.in_scope(|| self.refused(&mut attempt, &accepted, refusal))
                        }
                    }
                }
                Err(message) => message,
            };
            if repeated {
                attempt.kind = AttemptKind::Repeated;
            }
            // No await below in this attempt: the span is entered to the
            // end of it.
            let _in_attempt = span.enter();
            if number == self.max_attempts {
                self.record(attempt);
                break;
            }
            if let Err(limit) = self.budget.check_tokens() {
                self.record(attempt);
                return Err(self.fail(ThinkErrorKind::Budget { limit }));
            }
            self.send_back(attempt, message);
        }
        Err(self.fail(ThinkErrorKind::Exhausted))
    }

    /// The span of attempt `number`, named by its kind (see
    /// [`Strategy::trace_name`](attempt::Strategy::trace_name)).
    fn attempt_span(&self, number: usize) -> Span {
        let constrained = self.constrains(number)
            && self.reader.has_grammar()
            && self.model_for(number).takes_grammar().is_some();
        let escalated = self
            .think
            .escalate
            .as_ref()
            .is_some_and(|(_, after)| attempt::escalates(*after, number));
        let kind = self.reader.asked().trace_name(Sent {
            escalated,
            constrained,
        });
        trace::attempt_span(number, kind, self.model_name(number), constrained)
    }

    /// The model that answers attempt `number`: the stronger one after
    /// [`Think::escalate_to`]'s count of failed attempts.
    fn model_for(&self, number: usize) -> &'r dyn ChatModel {
        let think = self.think;
        match &think.escalate {
            Some((stronger, after)) if attempt::escalates(*after, number) => &**stronger,
            _ => &*think.model,
        }
    }

    /// The name of the model that answers attempt `number` (as
    /// [`ask`](Self::ask) chooses).
    fn model_name(&self, number: usize) -> &'r str {
        self.model_for(number).name()
    }

    /// One model call (with its transport retries), opened as the ledger
    /// entry of attempt `number`; with the problem it was stopped at, when
    /// it streamed and was stopped early.
    async fn ask(&mut self, number: usize) -> Result<(Attempt, Option<Problem>), ThinkError> {
        let request = self.conversation.request();
        let think = self.think;
        let model = self.model_for(number);
        let grammar = self.grammar_for(number);
        let json = grammar.is_some() && model.takes_grammar() == Some(grammar::Format::JsonSchema);
        // A reply in JSON has no sections to watch as it arrives: it is
        // read whole.
        let mut listener = self.listener.as_mut().filter(|_| !json);
        if let Some(listener) = listener.as_deref_mut() {
            listener.start(number, self.reader.kept().into_iter());
        }
        // The journal and the response cache, when set, answer or record
        // from around the model (the stronger one too, once escalated).
        let stored = think.stores.around(model, think.prices.as_deref());
        let mut asked = Request::new(&request)
            .with_shared_prefix(self.conversation.shared_prefix())
            .with_logprobs(think.confidence);
        if let Some(grammar) = &grammar {
            asked = asked.with_grammar(grammar);
        }
        let call = transport::call(
            &stored,
            &think.retry_policy,
            asked,
            &mut self.budget,
            number,
            listener,
        )
        .await;
        // The ledger says what was sent: a model that takes no grammar
        // (`takes_grammar` is `None`) may ignore the one the request
        // carries, so its attempt is not marked constrained.
        let constrained = grammar.is_some() && model.takes_grammar().is_some();
        self.constraint = grammar.map(|grammar| (grammar, json));
        match call {
            Ok(mut call) => {
                let aborted = call.aborted.take();
                let mut attempt = self.open_attempt(number, model.name(), call);
                attempt.constrained = constrained;
                self.trace_content(&request, &attempt);
                Ok((attempt, aborted))
            }
            Err(CallFailure { stop, call }) => Err(self.stopped(number, stop, call)),
        }
    }

    /// How many replies attempt `number` asks for at once, when more than
    /// one ([`Think::samples`]): an attempt of a kind that may be asked
    /// several times (the first), of a type of sections, unless its grammar
    /// asks for JSON (read whole, in the grammar's schema, it has no
    /// sections to agree on).
    fn samples_for(&self, number: usize) -> Option<usize> {
        let k = self.think.samples;
        let json = || {
            self.constrains(number)
                && self.model_for(number).takes_grammar() == Some(grammar::Format::JsonSchema)
        };
        let sampled = self.reader.asked().may_sample();
        (sampled && k > 1 && self.reader.specs().is_some() && !json()).then_some(k)
    }

    /// Attempt `number` asked for `k` replies at once: of a model that
    /// [`answers_n`](ChatModel::answers_n), one call asking for all `k`
    /// ([`Request::n`](crate::model::Request::n)), the call's usage and
    /// cost on its first reply; the replies it did not give (a server that
    /// ignores `n` gives one), or all `k` of another model, asked one call
    /// each, concurrently. Each call with its transport retries, under the
    /// run's budgets. The attempt's reply is the first; every reply is one
    /// of its [`samples`](Attempt::samples), and the answer they agree on
    /// is what the reader reads ([`Run::agreed`]), each section's
    /// confidence the share that agreed. Ends the run only when no call
    /// got a reply.
    async fn ask_samples(
        &mut self,
        number: usize,
        k: usize,
    ) -> Result<(Attempt, Option<Problem>), ThinkError> {
        let request = self.conversation.request();
        let think = self.think;
        let model = self.model_for(number);
        let grammar = self.grammar_for(number);
        let shared_prefix = self.conversation.shared_prefix();
        // One store layer for every sample: each sample has its own place
        // in the job, asked alone or with the others in one request.
        let stored = think.stores.around(model, think.prices.as_deref());
        let ask = |sample: usize, n: usize| {
            let mut asked = Request::new(&request)
                .with_shared_prefix(shared_prefix)
                .with_sample(sample as u32)
                .with_n(n as u32);
            if let Some(grammar) = &grammar {
                asked = asked.with_grammar(grammar);
            }
            asked
        };
        let mut replies: Vec<Call> = Vec::with_capacity(k);
        let mut failed: Vec<CallFailure> = Vec::new();
        if model.answers_n() {
            let policy = &think.retry_policy;
            match transport::call(&stored, policy, ask(0, k), &mut self.budget, number, None).await
            {
                Ok(call) => replies.extend(call.split()),
                Err(failure) => failed.push(failure),
            }
            replies.truncate(k);
        }
        let asked = replies.len();
        if asked < k {
            let mut budgets: Vec<Budget> = (asked..k).map(|_| self.budget.fork()).collect();
            let calls = budgets.iter_mut().zip(asked..k).map(|(budget, sample)| {
                transport::call(
                    &stored,
                    &think.retry_policy,
                    ask(sample, 1),
                    budget,
                    number,
                    None,
                )
            });
            let calls = futures_util::future::join_all(calls).await;
            self.budget.join(&budgets);
            for call in calls {
                match call {
                    Ok(call) => replies.push(call),
                    Err(failure) => failed.push(failure),
                }
            }
        }
        let constrained = grammar.is_some();
        self.constraint = grammar.map(|grammar| (grammar, false));
        let mut replies = replies.into_iter();
        let Some(first) = replies.next() else {
            // Every call failed: the run stops at the first failure, with
            // every request of the others in its record.
            let mut failed = failed.into_iter();
            let (stop, mut call) = match failed.next() {
                Some(CallFailure { stop, call }) => (stop, call),
                None => (
                    Stop::Model(ModelError::Other("no call was made".into())),
                    None,
                ),
            };
            for other in failed.filter_map(|failure| failure.call) {
                match &mut call {
                    Some(call) => {
                        call.failures.extend(other.failures);
                        call.usage = super::budget::sum(call.usage, other.usage);
                    }
                    None => call = Some(other),
                }
            }
            return Err(self.stopped(number, stop, call));
        };
        let sample_of = |one: &Attempt| super::outcome::Sample {
            raw: one.raw.clone(),
            reasoning: one.reasoning.clone(),
            usage: one.usage,
            finish_reason: one.finish_reason.clone(),
            served: one.served.clone(),
            cost: one.cost,
        };
        let mut attempt = self.open_attempt(number, model.name(), first);
        let mut samples = vec![sample_of(&attempt)];
        for call in replies {
            let one = self.open_attempt(number, model.name(), call);
            samples.push(sample_of(&one));
            attempt.usage = super::budget::sum(attempt.usage, one.usage);
            attempt.usage_reported |= one.usage_reported;
            attempt.latency = attempt.latency.max(one.latency);
            attempt.transport_retries.extend(one.transport_retries);
            attempt.cost = match (attempt.cost, one.cost) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            };
        }
        // The requests of the calls that got no reply are the attempt's
        // too.
        for failure in failed.into_iter().filter_map(|failure| failure.call) {
            attempt.transport_retries.extend(failure.failures);
        }
        attempt.constrained = constrained;
        let voices: Vec<samples::Voice<'_>> = samples
            .iter()
            .map(|sample| samples::Voice {
                raw: &sample.raw,
                truncated: sample.finish_reason == Some(FinishReason::Length),
            })
            .collect();
        let specs = self.reader.specs().unwrap_or(&[]);
        let phrases = crate::phrases::phrases(self.reader.lang(None));
        let agreement = samples::agree(&voices, specs, self.reader.ways(), phrases);
        attempt.confidence = agreement.confidence;
        self.agreed = Some(SharedText::from(agreement.answer));
        self.logprobs.clear();
        attempt.samples = samples;
        self.trace_content(&request, &attempt);
        Ok((attempt, None))
    }

    /// With [`Think::trace_content`], puts the conversation sent and the
    /// attempt's reply on the attempt's span.
    fn trace_content(&self, request: &[Message], attempt: &Attempt) {
        if self.think.trace_content {
            trace::content(
                &Span::current(),
                request,
                &attempt.raw,
                attempt.finish_reason.as_ref(),
            );
        }
    }

    /// The grammar attempt `number` is sent with, when it is constrained
    /// ([`Run::constrains`]): the grammar of what the attempt asks for (see
    /// [`Reader::grammar`]).
    fn grammar_for(&self, number: usize) -> Option<Grammar> {
        if !self.constrains(number) {
            return None;
        }
        self.reader
            .grammar(self.model_for(number).reply_token_limit())
    }

    /// Whether attempt `number` is sent with a grammar (see
    /// [`Constraining::applies`]).
    fn constrains(&self, number: usize) -> bool {
        self.constraining
            .applies(number, || self.model_for(number).takes_grammar().is_some())
    }

    /// The ledger entry of a reply, not yet judged, from `called` or the
    /// model its response names ([`Response::model`](crate::model::Response::model)):
    /// the entry names and prices the model that answered.
    fn open_attempt(&mut self, number: usize, called: &str, call: Call) -> Attempt {
        let model = call.model.as_deref().unwrap_or(called);
        // The failed requests' tokens are already in the budget.
        self.budget.add_usage(call.reply.usage);
        self.logprobs = call.reply.logprobs;
        let raw = SharedText::from(call.reply.content);
        self.conversation.log_reply(&raw);
        let usage = super::budget::sum(call.reply.usage, call.wasted);
        let batch = matches!(call.served, Served::Batch { .. });
        Attempt {
            number,
            kind: AttemptKind::Rejected,
            model: model.to_string(),
            raw,
            reasoning: call.reply.reasoning,
            feedback: None,
            sent_back: None,
            latency: call.latency,
            constrained: false,
            usage,
            usage_reported: call.reply.usage != Usage::default(),
            finish_reason: call.reply.finish_reason,
            transport_retries: call.retries,
            json: Vec::new(),
            confidence: Vec::new(),
            samples: Vec::new(),
            // A stored reply's cost is known: the recorded one, or nothing.
            cost: call.cost.or_else(|| self.think.cost(model, &usage, batch)),
            served: call.served,
        }
    }

    /// True when `attempt`'s reply is the previous reply again, word for word.
    fn repeats_previous(&self, attempt: &Attempt) -> bool {
        self.attempts
            .last()
            .is_some_and(|previous| previous.raw.trim() == attempt.raw.trim())
    }

    /// Ends the run on a repeated reply, which carries the previous
    /// reply's problems.
    fn stop_on_repeat(mut self, mut attempt: Attempt) -> ThinkError {
        attempt.kind = AttemptKind::Repeated;
        attempt.feedback = self.attempts.last().and_then(|a| a.feedback.clone());
        self.record(attempt);
        self.fail(ThinkErrorKind::RepeatedReply)
    }

    /// Reads the attempt's reply: a value, or the message to send back
    /// (the problems are written into the attempt). A reply stopped early at
    /// `aborted` gets that problem's feedback.
    fn read(
        &mut self,
        attempt: &mut Attempt,
        aborted: Option<Problem>,
    ) -> Result<Accepted<U>, String> {
        // The answer several replies agreed on is read instead of the
        // first of them; the replies' cut-off ends had no say in it.
        let agreed = self.agreed.clone();
        let truncated = agreed.is_none() && attempt.finish_reason == Some(FinishReason::Length);
        // A reply in a grammar's JSON schema is read as the sections it
        // holds; one that is not such JSON is read as it is (a model that
        // answered in sections anyway).
        let from_json = attempt::read_json(self.constraint.take(), &attempt.raw);
        let raw = match (&from_json, &agreed) {
            (Some(reply), _) => {
                if attempt.reasoning.is_none() {
                    attempt.reasoning = reply.reasoning.clone();
                }
                SharedText::from(reply.sections.as_str())
            }
            (None, Some(agreed)) => agreed.clone(),
            (None, None) => attempt.raw.clone(),
        };
        let from_json = from_json.map(|_| raw.clone());
        // The one section the reply was asked for, which a bare answer is
        // read as (before the reader moves on to its next question).
        let asked_one = self.reader.asked().one();
        let logprobs = std::mem::take(&mut self.logprobs);
        if self.think.confidence && from_json.is_none() && agreed.is_none() {
            attempt.confidence =
                self.confidence_of(&raw, &logprobs, asked_one, attempt.constrained);
        }
        // The sections checked as the reply streamed were typed then: the
        // reader takes their values, and does not read them again.
        if let (None, None, Some(listener)) = (&from_json, &agreed, &mut self.listener) {
            self.reader.adopt_typed(listener.take_typed());
        }
        let verdict = match aborted {
            Some(problem) => {
                let mut invalid = Feedback::new(Default::default());
                invalid.push(problem);
                self.reader.read_aborted(&raw, attempt.number, invalid)
            }
            None => {
                // A reply read as it streamed was split then: its sections
                // are handed on (a reply read whole, from JSON, or cut short
                // by a transport retry is split by the reader).
                let streamed = match (&from_json, &agreed, &self.listener) {
                    (None, None, Some(listener)) => listener.sections_of(&raw),
                    _ => None,
                };
                match streamed {
                    Some((text, sections)) => {
                        self.reader
                            .read_split(text, Some(sections), attempt.number, truncated)
                    }
                    None => self.reader.read(&raw, attempt.number, truncated),
                }
            }
        };
        let specs = self.reader.specs().unwrap_or(&[]);
        match verdict {
            Verdict::Value {
                value,
                kind,
                answer,
                json,
            } => {
                // The answer to a focused question is judged as the
                // section it was read as.
                let judged = match (&answer, kind) {
                    (Some(answer), AttemptKind::Focused) => answer.as_str(),
                    _ => &raw,
                };
                trace::evaluations(specs, judged, None, &attempt.confidence);
                Ok(Accepted {
                    value,
                    kind,
                    // The agreed answer is the one the value was read from.
                    answer: answer.or_else(|| agreed.map(|agreed| agreed.to_string())),
                    from_json,
                    json,
                })
            }
            Verdict::Rejected {
                problems,
                message,
                kind,
            } => {
                self.reader.sent(&message);
                trace::evaluations(specs, &raw, Some(&problems), &attempt.confidence);
                attempt.kind = kind;
                attempt.feedback = Some(problems);
                Err(message)
            }
            Verdict::Truncated { message } => {
                self.reader.sent(&message);
                attempt.kind = AttemptKind::Truncated;
                Err(message)
            }
        }
    }

    /// How sure the model was of each section of `raw`, from its tokens'
    /// `logprobs` (see think/confidence.rs): the sections the reply holds,
    /// or, for a reply with no header at all to a question about one
    /// section (`asked_one`), the whole reply as that section, as the
    /// reader takes a bare answer.
    fn confidence_of(
        &self,
        raw: &str,
        logprobs: &[TokenLogprob],
        asked_one: Option<usize>,
        constrained: bool,
    ) -> Vec<confidence::FieldConfidence> {
        let Some(specs) = self.reader.specs() else {
            return Vec::new();
        };
        if logprobs.is_empty() {
            return Vec::new();
        }
        let phrases = crate::phrases::phrases(self.reader.lang(None));
        let map = crate::parse::split_sections(raw, specs);
        let headerless = (0..specs.len()).all(|index| map.content(index).is_none());
        match asked_one {
            Some(one) if headerless => {
                let start = raw.len() - raw.trim_start().len();
                let whole = start..raw.trim_end().len().max(start);
                let ranges = |index: usize| (index == one).then(|| whole.clone());
                confidence::of_reply(raw, logprobs, specs, ranges, constrained, phrases)
            }
            _ => confidence::of_map(raw, logprobs, specs, &map, constrained, phrases),
        }
    }

    /// The check of [`Think::check`] refused a value that parsed: its text,
    /// as written, is the attempt's problem, and the message asks for the
    /// whole answer again.
    fn refused(
        &mut self,
        attempt: &mut Attempt,
        accepted: &Accepted<U>,
        message: String,
    ) -> String {
        let lang = self.reader.lang(None);
        let mut problems = Feedback::new(lang);
        problems.push(Problem::new(String::new(), ProblemKind::Check { message }));
        attempt.kind = AttemptKind::CheckFailed;
        attempt.json = accepted.json.clone();
        let message = self.reader.ask_whole(&problems);
        attempt.feedback = Some(problems);
        message
    }

    /// The run ends with a value.
    fn finish(mut self, mut attempt: Attempt, accepted: Accepted<U>) -> Outcome<U> {
        attempt.kind = accepted.kind;
        attempt.json = accepted.json;
        let ending = match (accepted.kind, attempt.number) {
            (AttemptKind::Merged | AttemptKind::Focused, n) => Ending::Repaired(n - 1),
            (_, 1) => Ending::FirstTry,
            (_, n) => Ending::Reasked(n - 1),
        };
        let final_reply = match accepted.answer {
            Some(merged) => SharedText::from(merged),
            None => attempt.raw.clone(),
        };
        self.record_typed(
            accepted.from_json.as_ref().unwrap_or(&final_reply),
            &attempt,
        );
        let sources = if matches!(accepted.kind, AttemptKind::Merged | AttemptKind::Focused) {
            self.reader.sources()
        } else {
            Vec::new()
        };
        let confidence = self.value_confidence(&attempt, &sources);
        let needs_review = self.needs_review(&confidence);
        self.record_confidence(&attempt, &confidence, &needs_review);
        self.record(attempt);
        Outcome {
            confidence,
            needs_review,
            value: accepted.value,
            attempts: self.attempts,
            usage: self.budget.used(),
            transcript: self.conversation.into_transcript(),
            ending,
            sources,
            elapsed: self.budget.elapsed(),
            prompt: self.prompt,
            final_reply,
            learned: self.learned,
        }
    }

    /// How sure the model was of each section of the value: the
    /// confidence its section had in the reply it came from (`sources`,
    /// for a merged answer; `last`, the reply that gave the value,
    /// otherwise).
    fn value_confidence(
        &self,
        last: &Attempt,
        sources: &[SectionSource],
    ) -> Vec<confidence::FieldConfidence> {
        let Some(specs) = self.reader.specs() else {
            return Vec::new();
        };
        specs
            .iter()
            .filter_map(|spec| {
                let number = sources
                    .iter()
                    .find(|source| source.header == spec.header)
                    .map_or(last.number, |source| source.attempt);
                let attempt = match number == last.number {
                    true => last,
                    false => self.attempts.iter().find(|a| a.number == number)?,
                };
                let found = confidence::find(&attempt.confidence, spec.field)?;
                Some((spec.field, found))
            })
            .collect()
    }

    /// The fields whose confidence is below [`Think::review_below`]'s
    /// threshold, in the order of the type's sections; said in the trace.
    fn needs_review(&self, confidence: &[confidence::FieldConfidence]) -> Vec<&'static str> {
        let Some(threshold) = self.think.review_below else {
            return Vec::new();
        };
        let fields: Vec<&'static str> = confidence
            .iter()
            .filter(|(_, value)| *value < threshold)
            .map(|&(field, _)| field)
            .collect();
        if !fields.is_empty() {
            tracing::info!(
                twr.needs_review = fields.join(", ").as_str(),
                twr.review_below = threshold,
                "twr values to review"
            );
        }
        fields
    }

    /// Records in the job what the run measured (see
    /// [`Job::confidences`](crate::journal::Job::confidences) and
    /// [`Job::needs_review`](crate::journal::Job::needs_review)): every
    /// attempt's confidences, `last` the final one, and the value's
    /// sections to review with their confidences, by the prompt's text.
    fn record_confidence(
        &self,
        last: &Attempt,
        confidence: &[confidence::FieldConfidence],
        needs_review: &[&'static str],
    ) {
        // A run that asked for nothing records nothing; one that asked
        // and measured nothing (replies replayed without log-probabilities,
        // a server that gives none) replaces the prompt's old records.
        let asked =
            self.think.confidence || self.think.samples > 1 || self.think.review_below.is_some();
        if !asked || !self.think.stores.records() {
            return;
        }
        let attempts: Vec<(usize, &'static str, f64, bool)> = self
            .attempts
            .iter()
            .chain(std::iter::once(last))
            .flat_map(|attempt| {
                let agreement = !attempt.samples.is_empty();
                attempt
                    .confidence
                    .iter()
                    .map(move |&(field, value)| (attempt.number, field, value, agreement))
            })
            .collect();
        let review = self.think.review_below.map(|threshold| {
            let fields = needs_review
                .iter()
                .filter_map(|field| Some((*field, confidence::find(confidence, field)?)))
                .collect();
            (threshold, fields)
        });
        self.think
            .stores
            .record_confidence(self.prompt.content.as_str(), attempts, review);
    }

    /// Records in the job that the run ended with a value read from
    /// `answer` at `last`, the final attempt: the prompt and the answer in
    /// the soft format, only the type's sections (see
    /// [`Think::learn_from`](super::Think::learn_from)). Called only for a
    /// value every validator and the check accepted. A prompt with
    /// attachments is not recorded: shown without them, its answer would
    /// teach an answer to what the model cannot see. A record that cannot
    /// be written does not take the value away: the replies are recorded,
    /// so a resumption replays the run and records it then.
    fn record_typed(&self, answer: &str, last: &Attempt) {
        let (Some(shape), Some(specs)) = (&self.record_as, self.reader.specs()) else {
            return;
        };
        if !self.prompt.attachments().is_empty() {
            return;
        }
        self.think.stores.record_typed(
            shape,
            self.prompt.content.as_str(),
            || super::demo::soft_answer(answer, specs, self.reader.ways(), self.reader.lang(None)),
            last.constrained || self.attempts.iter().any(|a| a.constrained),
            self.attempts.len() + 1,
        );
    }

    /// Records in the job what `next` made of the feedback sent before it
    /// (see [`Job::feedback_rates`](crate::journal::Job::feedback_rates)):
    /// for each problem of the previous attempt the feedback named, whether
    /// `next` fixed its section. Not for a reply replayed from the journal
    /// (counted when it first came), nor for one cut off or stopped early
    /// (it says nothing of the wording).
    fn record_feedback(&mut self, next: &Attempt) {
        let Some((wording, asked)) = self.sent.take() else {
            return;
        };
        let Some(previous) = self.attempts.last() else {
            return;
        };
        if !self.think.stores.records()
            || next.served == Served::Journal
            || matches!(next.kind, AttemptKind::Truncated | AttemptKind::Aborted)
        {
            return;
        }
        let Some(problems) = &previous.feedback else {
            return;
        };
        let remaining = next.feedback.as_ref().map(Feedback::problems);
        let mut named: Vec<(&str, &'static str)> = problems
            .problems()
            .iter()
            .filter(|p| !matches!(p.kind, ProblemKind::Omitted { .. }))
            .filter(|p| asked.is_none_or(|header| p.header == header))
            .map(|p| (p.header.as_str(), p.kind.name()))
            .collect();
        named.sort_unstable();
        named.dedup();
        let followed: Vec<(&'static str, bool)> = named
            .into_iter()
            .map(|(header, problem)| {
                // A repeated reply fixed nothing, whatever it was read as.
                let fixed = next.kind != AttemptKind::Repeated
                    && remaining.is_none_or(|left| left.iter().all(|p| p.header != header));
                (problem, fixed)
            })
            .collect();
        if !followed.is_empty() {
            self.think
                .stores
                .record_feedback(&next.model, wording, next.constrained, &followed);
        }
    }

    /// Puts the failed reply (or, for a huge one, its bounded form) and `message`
    /// into the conversation for the next request.
    fn send_back(&mut self, mut attempt: Attempt, message: String) {
        // Before a focused question the model sees its answer so far (the
        // valid sections), not the reply that failed; the ledger keeps both.
        let shown = self.reader.take_shown();
        let focus = attempt
            .feedback
            .as_ref()
            .map(Feedback::headers)
            .unwrap_or_default();
        let lang = self.reader.lang(attempt.feedback.as_ref());
        // How the message is worded: a check's refusal is a plain list.
        let wording = match attempt.kind {
            AttemptKind::CheckFailed => Some(Wording::Listed),
            _ => self.reader.worded(),
        };
        let asked = match (self.reader.asked().focus(), self.reader.specs()) {
            (Some(index), Some(specs)) => specs.get(index).map(|spec| spec.header),
            _ => None,
        };
        // The model is shown what was read: the answer its replies agreed
        // on, when it was asked several times.
        let read = self.agreed.take().unwrap_or_else(|| attempt.raw.clone());
        let reply = match shown {
            Some(shown) => SharedText::from(shown),
            None => match bounded_reply(&read, &focus, |bytes| messages::left_out(lang, bytes)) {
                Some(bounded) => SharedText::from(bounded),
                None => read,
            },
        };
        self.conversation.send_back(reply, &message);
        self.notes.send(Note::Retry {
            attempt: attempt.number,
            kind: attempt.kind,
            feedback: message.clone(),
        });
        attempt.sent_back = Some(message);
        self.record(attempt);
        self.sent = wording.map(|wording| (wording, asked));
    }

    /// The run ends during a call that got no reply.
    fn stopped(&mut self, number: usize, stop: Stop, mut call: Option<FailedCall>) -> ThinkError {
        if let Some(call) = &mut call {
            call.cost = self.think.cost(self.model_name(number), &call.usage, false);
        }
        let kind = match stop {
            Stop::Budget(limit) => {
                tracing::warn!(attempt = number, %limit, "twr budget exhausted");
                ThinkErrorKind::Budget { limit }
            }
            Stop::Model(source) => {
                let retries = call
                    .as_ref()
                    .map_or(0, |call| call.failures.len().saturating_sub(1))
                    as u32;
                tracing::warn!(attempt = number, retries, error = %source, "twr model call failed");
                ThinkErrorKind::Model { source, retries }
            }
        };
        let attempts = std::mem::take(&mut self.attempts);
        ThinkError::new(kind, attempts, call, self.budget.used())
            .with_learned(std::mem::take(&mut self.learned))
    }

    /// The run ends without a value, between calls.
    fn fail(self, kind: ThinkErrorKind) -> ThinkError {
        if let ThinkErrorKind::Budget { limit } = &kind {
            tracing::warn!(attempt = self.attempts.len(), %limit, "twr budget exhausted");
        }
        ThinkError::new(kind, self.attempts, None, self.budget.used()).with_learned(self.learned)
    }

    /// Emits the attempt's event, calls the hook and appends the entry.
    fn record(&mut self, attempt: Attempt) {
        self.agreed = None;
        self.record_feedback(&attempt);
        trace::attempt_ended(&Span::current(), &attempt);
        self.think.record(&attempt);
        self.attempts.push(attempt);
    }
}
