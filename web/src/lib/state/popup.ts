import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { TIMERS } from '@pass/events/kernel';

// The popup state of docs/product.md §3: the ads popup and the ad checks (features/ads), the cookie
// acceptance (the page frame's notice), whether ads may show at all (false for admins,
// features/admin) and the free-points page's banner check (features/free-points).

export interface PopupState {
  /** The full-screen ads popup is visible. */
  showPopup: boolean;
  acceptedCookie: boolean;
  /** Ads may be shown at all (false for admins). */
  showAds: boolean;
  /** The ad-block notice is shown. */
  blockMessage: boolean;
  /** The 7 s ad-block check has run (the first ads popup waits for it). */
  adBlockCheckDone: boolean;
  /** All popup banners hold an iframe (checked 9 s after the popup shows). */
  bannerTwoLoaded: boolean;
  /** The /content/check banner holds an iframe (checked when the countdown is at 29, after 9 s). */
  bannerThree: boolean;
  /** The popup's countdown, 10 → 0. */
  seconds: number;
}

export const initialPopupState: PopupState = {
  showPopup: false,
  acceptedCookie: false,
  showAds: true,
  blockMessage: false,
  adBlockCheckDone: false,
  bannerTwoLoaded: false,
  bannerThree: false,
  seconds: TIMERS.adsPopupCountdownSeconds,
};

const popupSlice = createSlice({
  name: 'popup',
  initialState: initialPopupState,
  reducers: {
    cookieAccepted(state) {
      state.acceptedCookie = true;
    },
    showAdsSet(state, action: PayloadAction<boolean>) {
      state.showAds = action.payload;
    },
    adBlockChecked(state, action: PayloadAction<{ blocked: boolean }>) {
      state.blockMessage = action.payload.blocked;
      state.adBlockCheckDone = true;
    },
    adsShown(state) {
      state.showPopup = true;
      state.seconds = TIMERS.adsPopupCountdownSeconds;
      state.bannerTwoLoaded = false;
    },
    adsTicked(state) {
      state.seconds = Math.max(0, state.seconds - 1);
    },
    /** Hide and reset the timer and the loaded flag (docs/product.md §4). */
    adsHidden(state) {
      state.showPopup = false;
      state.seconds = TIMERS.adsPopupCountdownSeconds;
      state.bannerTwoLoaded = false;
    },
    /** The X; the saga honours it only when the banners loaded. */
    adsCloseRequested() {},
    bannerTwoLoadedSet(state, action: PayloadAction<boolean>) {
      state.bannerTwoLoaded = action.payload;
    },
    bannerThreeSet(state, action: PayloadAction<boolean>) {
      state.bannerThree = action.payload;
    },
  },
});

export const popupActions = popupSlice.actions;
export const popupReducer = popupSlice.reducer;
