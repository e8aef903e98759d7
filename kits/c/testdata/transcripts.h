/* Transcripts the tests replay: PROTOCOL.md §7 (seat 1 of a sixty_six match) and §9.7 (seat 1 of a
 * three_player match), with the rules lines in full, as recorded from real matches (the same as
 * kits/cpp/testdata). '>' lines come from the referee, '<' lines are what the bot in the document
 * answered. Each list ends with NULL. */
#ifndef KIT_TESTDATA_TRANSCRIPTS_H
#define KIT_TESTDATA_TRANSCRIPTS_H

#include <stddef.h>

static const char *const SIXTY_SIX_RULES =
    "rules deck_size=24 hand_size=6 deal_pattern=3_3 exchange_who=leader_or_follower exchange_requires_trick=true exchange_min_stock=2 exchange_on_opponent_close=true marriage_requires_prior_trick=false marriage_credit=once_any_trick marriage_in_phase2=false marriage_on_closing_lead=true marriage_lead_card=king_or_queen claim_after_meld=true close_enabled=true close_before_draw=true close_min_stock=2 close_pre_draw_min_stock=4 close_before_first_trick=true closer_tier_basis=final close_fail_three_if=opp_no_trick_at_close opponent_out_after_close=as_close_fail phase2_follow=strict claim_mode=explicit claim_window=after_trick_or_meld wrong_claim_award=two_or_three schwarz_test=no_tricks schneider_below=33 last_trick_bonus=10 end_without_claim=draw_carry undeclared_66_voids_claim=false draw_carry_points=1 draw_carry_accumulates=true match_target=7 shutout_double=false next_dealer=alternate dealer_after_draw=alternate illegal_move_policy=forfeit_match";

static const char *const THREE_PLAYER_RULES =
    "rules deck_size=32 hand_size=7 deal_pattern=3_4 exchange_who=leader_only exchange_requires_trick=true exchange_min_stock=2 exchange_on_opponent_close=false marriage_requires_prior_trick=false marriage_credit=once_any_trick marriage_in_phase2=false marriage_on_closing_lead=true marriage_lead_card=king_or_queen claim_after_meld=true close_enabled=false close_before_draw=true close_min_stock=2 close_pre_draw_min_stock=4 close_before_first_trick=true closer_tier_basis=final close_fail_three_if=opp_no_trick_at_close opponent_out_after_close=as_close_fail phase2_follow=strict claim_mode=explicit claim_window=after_trick_or_meld wrong_claim_award=two schwarz_test=no_tricks schneider_below=33 last_trick_bonus=10 end_without_claim=higher_total undeclared_66_voids_claim=false draw_carry_points=1 draw_carry_accumulates=true match_target=7 shutout_double=false next_dealer=alternate dealer_after_draw=alternate illegal_move_policy=forfeit_match players=3 claim_target=66 must_beat_partner=true";

static const char *const EXAMPLE_2P[] = {
    "> sixtysix 1",
    "< ready greedy",
    "> match example17 profile sixty_six target 7 seat 1 opponent random decision_ms 1000",
    "> rules deck_size=24 hand_size=6 deal_pattern=3_3 exchange_who=leader_or_follower exchange_requires_trick=true exchange_min_stock=2 exchange_on_opponent_close=true marriage_requires_prior_trick=false marriage_credit=once_any_trick marriage_in_phase2=false marriage_on_closing_lead=true marriage_lead_card=king_or_queen claim_after_meld=true close_enabled=true close_before_draw=true close_min_stock=2 close_pre_draw_min_stock=4 close_before_first_trick=true closer_tier_basis=final close_fail_three_if=opp_no_trick_at_close opponent_out_after_close=as_close_fail phase2_follow=strict claim_mode=explicit claim_window=after_trick_or_meld wrong_claim_award=two_or_three schwarz_test=no_tricks schneider_below=33 last_trick_bonus=10 end_without_claim=draw_carry undeclared_66_voids_claim=false draw_carry_points=1 draw_carry_accumulates=true match_target=7 shutout_double=false next_dealer=alternate dealer_after_draw=alternate illegal_move_policy=forfeit_match",
    "> deal 1 dealer opp upcard KC stock 12 hand AC 9C QS JH KD QD score 0 0 pot 0",
    "> lead? close marry:D play:AC play:9C play:QS play:JH play:KD play:QD",
    "< marry:D",
    "> marriage me D 20",
    "> lead? claim play:KD play:QD",
    "< play:QD",
    "> played me QD",
    "> played opp TS",
    "> trick me QD TS",
    "> after_trick? claim close pass",
    "< pass",
    "> draw me KS",
    "> draw opp",
    "> lead? exchange close marry:S claim play:AC play:9C play:KS play:QS play:JH play:KD",
    "< exchange",
    "> exchange me KC 9C",
    "> lead? close marry:S claim play:AC play:KC play:KS play:QS play:JH play:KD",
    "< marry:S",
    "> marriage me S 20",
    "> lead? claim play:KS play:QS",
    "< play:QS",
    "> played me QS",
    "> played opp TC",
    "> trick opp QS TC",
    "> close opp",
    "> played opp JD",
    "> follow? play:KD",
    "< play:KD",
    "> played me KD",
    "> trick me JD KD",
    "> after_trick? claim pass",
    "< pass",
    "> lead? claim play:AC play:KC play:KS play:JH",
    "< play:AC",
    "> played me AC",
    "> played opp JC",
    "> trick me AC JC",
    "> after_trick? claim pass",
    "< claim",
    "> claim me",
    "> settle winner me reason claim_against_close points 2 awarded 2 totals 72 13 tricks 3 1 score 2 0 pot 0",
    NULL,
};

static const char *const EXAMPLE_3P[] = {
    "> sixtysix 1 players 3 profile three_player",
    "< ready random",
    "> match example300 profile three_player target 7 players 3 seat 1 names random random random decision_ms 1000",
    "> rules deck_size=32 hand_size=7 deal_pattern=3_4 exchange_who=leader_only exchange_requires_trick=true exchange_min_stock=2 exchange_on_opponent_close=false marriage_requires_prior_trick=false marriage_credit=once_any_trick marriage_in_phase2=false marriage_on_closing_lead=true marriage_lead_card=king_or_queen claim_after_meld=true close_enabled=false close_before_draw=true close_min_stock=2 close_pre_draw_min_stock=4 close_before_first_trick=true closer_tier_basis=final close_fail_three_if=opp_no_trick_at_close opponent_out_after_close=as_close_fail phase2_follow=strict claim_mode=explicit claim_window=after_trick_or_meld wrong_claim_award=two schwarz_test=no_tricks schneider_below=33 last_trick_bonus=10 end_without_claim=higher_total undeclared_66_voids_claim=false draw_carry_points=1 draw_carry_accumulates=true match_target=7 shutout_double=false next_dealer=alternate dealer_after_draw=alternate illegal_move_policy=forfeit_match players=3 claim_target=66 must_beat_partner=true",
    "> deal 1 dealer 0 upcard 9D stock 9 hand AS JS TH KH QH 9H 7D score 0 0 0 pot 0",
    "> lead? marry:H play:AS play:JS play:TH play:KH play:QH play:9H play:7D",
    "< marry:H",
    "> marriage 1 H 20",
    "> lead? claim play:KH play:QH",
    "< play:KH",
    "> played 1 KH",
    "> played 2 7H",
    "> played 0 KS",
    "> trick 1 KH 7H KS",
    "> after_trick? claim pass",
    "< pass",
    "> draw 1 JD",
    "> draw 2",
    "> draw 0",
    "> lead? exchange claim play:AS play:JS play:TH play:QH play:9H play:JD play:7D",
    "< exchange",
    "> exchange 1 9D 7D",
    "> lead? claim play:AS play:JS play:TH play:QH play:9H play:JD play:9D",
    "< play:9D",
    "> played 1 9D",
    "> played 2 7S",
    "> played 0 8H",
    "> trick 1 9D 7S 8H",
    "> after_trick? claim pass",
    "< claim",
    "> claim 1",
    "> settle winner none reason wrong_claim points 2 awarded 2 0 2 totals 0 28 0 tricks 0 2 0 score 2 0 2 pot 0 dead KC AD",
    NULL,
};

#endif
