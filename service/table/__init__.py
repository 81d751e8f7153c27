"""Seats and access: tokens and invitations, who a token is for, bot seats, games with a clock,
rematches."""
