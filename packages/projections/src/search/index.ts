/**
 * The search's public entry (`@ralph-mem/projections/search`): layer 1 (`searchIndex`: ranked one-line hits),
 * layer 2 (`timelineOf`: each hit with its neighbours) and layer 3 (`fullDetails`: complete observations).
 * Inside: query.ts turns free text into safe MATCH terms, lexicon.ts says what they also mean, terms.ts
 * prunes them, candidates.ts bounds what bm25 scores, coverage.ts weighs how much of the query a hit holds.
 */
export { fullDetails, type ObservationDetail, positionOfRef, type TimelineEntry, timelineOf } from "./details.ts"
export {
  defaultRecency,
  type IndexHit,
  type ObservationType,
  type Recency,
  searchIndex,
  type SearchOptions
} from "./hits.ts"
