// The members' ranking on home (docs/product.md §2 home: Top Members by country, Sponsors by passes).
export { RankingSections } from './RankingSections';
export { rankingActions, rankingReducer } from './slice';
export { rankingSaga } from './sagas';
