"""What a view shows, above the figures and shared by the app, the CLI and the notebook: options → prepared map
→ heads → figures (`selection`), the sentence about a focused row (`focus`), finding a head (`find_head`), how
measures agree (`agreement`), the options and their head selection (`viewing`, `head_choice`), the lenses' views (`lenses`) and the explainer's looking-is-not-using example
(`looking`). Numpy and plain Python; no torch."""
