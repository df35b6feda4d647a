import { useDispatch, useSelector } from 'react-redux';
import type { AppDispatch, RootState } from './store-types';

/** The store's typed hooks, for every feature's components. */
export const useAppDispatch = useDispatch.withTypes<AppDispatch>();
export const useAppSelector = useSelector.withTypes<RootState>();
