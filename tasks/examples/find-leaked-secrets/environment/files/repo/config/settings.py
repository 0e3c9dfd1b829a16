"""Service settings."""
import os

DEBUG = False
AWS_REGION = "eu-west-1"
AWS_ACCESS_KEY_ID = "AKIAZ7Q4RJ2LMN5TX3PB"
AWS_SECRET_ACCESS_KEY = "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"
DATABASE_URL = os.environ.get("DATABASE_URL", "postgres://localhost/app")
CACHE_TTL = 300
