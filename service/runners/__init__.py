"""What plays by itself: the bot runner, the clock runner, and `gruft simulate`."""
