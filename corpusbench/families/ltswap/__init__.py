"""LT-Swap (Algayres et al., 2025): WordSwap, InflectionSwap and AgreementSwap quadruplets from any corpus.

    corpusbench ltswap build CORPUS --out DIR [--stats DIR] [--llm-backend B --llm-model M --llm-base-url U]
                       [--max-per-bin N] [--seed S] [--lang en]

Stages (one module each): ``candidates`` (+ ``lexicon``) -> ``generation`` (prompts in
``corpusbench/families/ltswap/prompts``) -> ``parsing``/``checks``/``agreement`` -> ``assembly`` ->
``filtering`` -> ``output``; ``pipeline.run_ltswap`` runs them, ``cli`` is the command.

Decisions and departures from the reference implementation (see ``../shared/reference/ltswap.md``):

- Frequencies are surface counts of the lowercased form in the corpus vocabulary (what the
  evaluated model saw); a form's part of speech is its most frequent coarse tag in context.
- Inflection sets come from LemmInflect's lexicon (irregulars included) and a dictionary of NLTK
  ``words`` + WordNet lemmas, with corpus counts choosing spelling variants and deciding whether a
  mass noun has a plural; VBP is folded into VB, VBN into VBD when the forms coincide (distinct
  participles such as "taken" are out). The lemma-cluster filter of Appendix A applies to every
  candidate; inflection pairs are built from candidates, bin = the rarer form (0 = unseen).
- Sampling is seeded per (bin, tag) / (bin, POS) / bin, never first-come; WordSwap pairs are seeded
  random matchings within (bin, tag) (``--pairs-per-word`` rounds) instead of all O(n²) pairs.
- All tests on sentences are token-level; sentences keep natural spacing and apostrophes; good and
  bad sentences are rendered by one function, so they differ only by the swapped word (no
  capitalisation cue); the target itself may be unseen (bin 0), every other word must be seen.
- AgreementSwap pairs must be minimal pairs up to the agreement marker, which is found by walking
  both sentences in parallel; sentences are cut right after it (DET: after the noun). Irregular
  plurals are fine; nothing is deleted from inside a sentence.
- Inflection pairs are confirmed by the LLM (both orders) before any sentence is generated
  (``--no-confirm-inflections`` trusts the lexicon instead); the reference ignored that answer.
- The filter (``judging``) has three rules: the paper's ``strict`` (all four order-swapped A/B
  answers right), ``debiased`` (per pair, the right option's log-prob lead summed over both orders)
  and ``pointwise`` (default; yes/no per sentence, good must beat swapped). Options are read from
  the first answer token's log-probs without a forced "[" (tokenizers differ); a failed call is
  never cached as an answer (a retried call cannot poison the filter). The default writer/judge is
  Qwen2.5-Coder-1.5B-Instruct (``make judge-model``), measured on a shipped calibration set.
- The nonce word keeps the inflection of the word it replaces (blick/blicks/blicked/blicking) and
  is checked to be absent from the corpus.
"""
